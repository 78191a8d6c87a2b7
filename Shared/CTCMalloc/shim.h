#ifndef PUSHBUS_CTCMALLOC_SHIM_H
#define PUSHBUS_CTCMALLOC_SHIM_H
#include <gperftools/tcmalloc.h>
#endif
