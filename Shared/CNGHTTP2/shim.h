#ifndef PUSHBUS_CNGHTTP2_SHIM_H
#define PUSHBUS_CNGHTTP2_SHIM_H
#include <nghttp2/nghttp2.h>
#endif
