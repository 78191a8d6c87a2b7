#ifndef PUSHBUS_CSQLITE_SHIM_H
#define PUSHBUS_CSQLITE_SHIM_H
#include <sqlite3.h>

/// sqlite3_db_config is variadic, which Swift cannot call: the lookaside setting, spelled out.
/// Slots of `slot_size` bytes, `count` of them, allocated by SQLite; SQLITE_OK or an error code.
static inline int pushbus_sqlite3_lookaside(sqlite3 *db, int slot_size, int count) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_LOOKASIDE, (void *)0, slot_size, count);
}
#endif
