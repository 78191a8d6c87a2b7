#ifndef PUSHBUS_CSQLITE_SHIM_H
#define PUSHBUS_CSQLITE_SHIM_H
#include <sqlite3.h>
#endif
