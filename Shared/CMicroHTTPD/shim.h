#ifndef PUSHBUS_CMICROHTTPD_SHIM_H
#define PUSHBUS_CMICROHTTPD_SHIM_H
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <microhttpd.h>
#endif
