#ifndef PUSHBUS_CZEROMQ_SHIM_H
#define PUSHBUS_CZEROMQ_SHIM_H
#include <zmq.h>
#endif
