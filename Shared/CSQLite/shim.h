#ifndef PUSHBUS_CSQLITE_SHIM_H
#define PUSHBUS_CSQLITE_SHIM_H
#include <sqlite3.h>

/* sqlite3_config is variadic, which Swift cannot call. Turns off SQLite's count of the memory it
   has allocated (which takes a process-wide mutex on every allocation and free); must run before
   the first connection opens. */
static inline int pushbus_sqlite3_stop_counting_memory(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
#endif
