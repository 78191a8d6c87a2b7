#ifndef PUSHBUS_CMICROHTTPD_SHIM_H
#define PUSHBUS_CMICROHTTPD_SHIM_H
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <microhttpd.h>
/* Swift's Glibc module leaves these out; the WebSocket loop polls upgraded sockets with them. */
#include <sys/epoll.h>
#include <sys/eventfd.h>

/// Starts a daemon on `address` whose internal thread polls every connection (epoll on Linux: one
/// thread for thousands of idle connections, and no FD_SETSIZE ceiling), with the limits that keep
/// a flood of unfinished requests from wedging it: at most `connection_limit` connections (at most
/// `per_ip_limit` of them from one address), each closed after `timeout_seconds` without traffic,
/// and `memory_limit` bytes per connection. Returns NULL when it cannot start (port taken, say).
static inline struct MHD_Daemon *pushbus_mhd_start(const struct sockaddr_in *address,
                                                   MHD_AccessHandlerCallback handler, void *context,
                                                   unsigned int connection_limit, unsigned int per_ip_limit,
                                                   unsigned int timeout_seconds, size_t memory_limit) {
    return MHD_start_daemon(MHD_USE_AUTO_INTERNAL_THREAD, ntohs(address->sin_port), NULL, NULL, handler, context,
                            MHD_OPTION_SOCK_ADDR, (const struct sockaddr *)address,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip_limit,
                            MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
                            MHD_OPTION_END);
}

/// Starts a daemon for a request/response API on `address`: a thread per connection, so a handler
/// that blocks on a slow call holds up only its own connection's next request (with a shared pool
/// it held up every connection its thread polled, and a benchmark served half the requests). The
/// same limits as `pushbus_mhd_start` (the connection limit bounds the threads); `completed` is
/// called when a request ends (to free what the handler kept in its `req_cls`); the port is shared
/// with other processes that ask for it too (SO_REUSEPORT), so several can serve one address.
static inline struct MHD_Daemon *pushbus_mhd_start_threaded(const struct sockaddr_in *address,
                                                            MHD_AccessHandlerCallback handler, void *context,
                                                            MHD_RequestCompletedCallback completed,
                                                            unsigned int connection_limit, unsigned int per_ip_limit,
                                                            unsigned int timeout_seconds, size_t memory_limit) {
    return MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL_INTERNAL_THREAD, ntohs(address->sin_port), NULL, NULL,
                            handler, context,
                            MHD_OPTION_SOCK_ADDR, (const struct sockaddr *)address,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, context,
                            MHD_OPTION_LISTENING_ADDRESS_REUSE, (unsigned int)1,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip_limit,
                            MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
                            MHD_OPTION_END);
}

/// A response that owns a copy of `length` bytes at `body`.
static inline struct MHD_Response *pushbus_mhd_copied_response(const void *body, size_t length) {
    return MHD_create_response_from_buffer(length, (void *)body, MHD_RESPMEM_MUST_COPY);
}
/// Starts a daemon that upgrades requests to another protocol (WebSocket): one internal thread polls
/// every HTTP connection with epoll until `handler` answers it, and an answer made with
/// MHD_create_response_for_upgrade hands the socket to the application. The port is shared with
/// other processes that ask for it too (SO_REUSEPORT). At most `connection_limit` connections,
/// upgraded ones included; a request not finished within `timeout_seconds` is dropped; each
/// connection gets `memory_limit` bytes for its request and response headers. Returns NULL when it
/// cannot start (port taken, say).
static inline struct MHD_Daemon *pushbus_mhd_start_upgrading(const struct sockaddr_in *address,
                                                             MHD_AccessHandlerCallback handler, void *context,
                                                             unsigned int connection_limit,
                                                             unsigned int timeout_seconds, size_t memory_limit) {
    return MHD_start_daemon(MHD_USE_EPOLL_INTERNAL_THREAD | MHD_ALLOW_UPGRADE,
                            ntohs(address->sin_port), NULL, NULL, handler, context,
                            MHD_OPTION_SOCK_ADDR, (const struct sockaddr *)address,
                            MHD_OPTION_LISTENING_ADDRESS_REUSE, (unsigned int)1,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
                            MHD_OPTION_END);
}

/// The port `daemon` listens on (the one the kernel chose when asked for port 0); 0 if unknown.
static inline uint16_t pushbus_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

/// Gives an upgraded socket back to MHD, which closes it (the application must never close(2) it).
/// Callable from any thread; the descriptor may be reused as soon as this returns. 1 on success.
static inline int pushbus_mhd_upgrade_close(struct MHD_UpgradeResponseHandle *handle) {
    return MHD_upgrade_action(handle, MHD_UPGRADE_ACTION_CLOSE) == MHD_YES;
}
#endif
