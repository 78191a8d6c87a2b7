#ifndef PUSHBUS_CSYSTEM_SHIM_H
#define PUSHBUS_CSYSTEM_SHIM_H
/* Linux calls Swift's Glibc module leaves out: the eventfd a loop is woken by, and epoll. */
#include <sys/eventfd.h>
#include <sys/epoll.h>
#endif
