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
#include <arpa/inet.h>
#include <stdint.h>

/// A response that owns a copy of `length` bytes at `body`.
static inline struct MHD_Response *pushbus_mhd_copied_response(const void *body, size_t length) {
    return MHD_create_response_from_buffer(length, (void *)body, MHD_RESPMEM_MUST_COPY);
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

/// How `pushbus_mhd_start_loop` sets a daemon up. `tls_key_pem`/`tls_cert_pem` NULL: plain HTTP.
struct pushbus_mhd_config {
    const struct sockaddr_in *address;
    MHD_AccessHandlerCallback handler;
    void *context;
    MHD_RequestCompletedCallback completed;
    MHD_NotifyConnectionCallback notify;
    unsigned int connection_limit;
    unsigned int per_ip_limit;
    unsigned int timeout_seconds;
    size_t memory_limit;
    int allow_upgrade;
    const char *tls_key_pem;
    const char *tls_cert_pem;
};

/// Starts a daemon driven by the caller's own loop (no thread of MHD's): epoll, suspend/resume (a
/// request answered later from another thread costs no thread while it waits), optionally
/// upgrades and TLS (GnuTLS). The caller polls `pushbus_mhd_epoll_fd` and calls MHD_run. Every
/// callback runs on the thread that calls MHD_run. The port is shared with other processes that
/// ask for it too (SO_REUSEPORT). NULL when it cannot start (port taken, bad key, no TLS support).
static inline struct MHD_Daemon *pushbus_mhd_start_loop(const struct pushbus_mhd_config *c) {
    unsigned int flags = MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME;
    if (c->allow_upgrade) flags |= MHD_ALLOW_UPGRADE;
    if (c->tls_key_pem != NULL) flags |= MHD_USE_TLS;
    struct MHD_OptionItem ops[16];
    int n = 0;
    ops[n++] = (struct MHD_OptionItem){MHD_OPTION_SOCK_ADDR, 0, (void *)c->address};
    ops[n++] = (struct MHD_OptionItem){MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)c->completed, c->context};
    ops[n++] = (struct MHD_OptionItem){MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)c->notify, c->context};
    ops[n++] = (struct MHD_OptionItem){MHD_OPTION_LISTENING_ADDRESS_REUSE, 1, NULL};
    ops[n++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_LIMIT, c->connection_limit, NULL};
    ops[n++] = (struct MHD_OptionItem){MHD_OPTION_PER_IP_CONNECTION_LIMIT, c->per_ip_limit, NULL};
    ops[n++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_TIMEOUT, c->timeout_seconds, NULL};
    ops[n++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t)c->memory_limit, NULL};
    if (c->tls_key_pem != NULL) {
        ops[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_KEY, 0, (void *)c->tls_key_pem};
        ops[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_CERT, 0, (void *)c->tls_cert_pem};
    }
    ops[n++] = (struct MHD_OptionItem){MHD_OPTION_END, 0, NULL};
    return MHD_start_daemon(flags, ntohs(c->address->sin_port), NULL, NULL, c->handler, c->context,
                            MHD_OPTION_ARRAY, ops, MHD_OPTION_END);
}

/// Whether this libmicrohttpd was built with TLS (Debian's is, with GnuTLS).
static inline int pushbus_mhd_has_tls(void) { return MHD_is_feature_supported(MHD_FEATURE_TLS) == MHD_YES; }

/// The epoll descriptor a loop polls for `daemon` (readable: call MHD_run); -1 if unknown.
static inline int pushbus_mhd_epoll_fd(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_EPOLL_FD);
    return info == NULL ? -1 : info->epoll_fd;
}

/// Milliseconds until MHD wants MHD_run again for its own timers; -1 when it has none.
static inline long long pushbus_mhd_timeout(struct MHD_Daemon *daemon) {
    MHD_UNSIGNED_LONG_LONG ms = 0;
    return MHD_get_timeout(daemon, &ms) == MHD_YES ? (long long)ms : -1;
}

/// The socket of `connection`; -1 if unknown.
static inline int pushbus_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

/// The client's address of `connection` as text ("192.0.2.1", "2001:db8::1") into `text`, and its
/// port into `port`; 0 if unknown.
static inline int pushbus_mhd_client_address(struct MHD_Connection *connection, char *text, socklen_t size, uint16_t *port) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL) return 0;
    const struct sockaddr *address = info->client_addr;
    if (address->sa_family == AF_INET) {
        *port = ntohs(((const struct sockaddr_in *)address)->sin_port);
        return inet_ntop(AF_INET, &((const struct sockaddr_in *)address)->sin_addr, text, size) != NULL;
    }
    if (address->sa_family == AF_INET6) {
        *port = ntohs(((const struct sockaddr_in6 *)address)->sin6_port);
        return inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)address)->sin6_addr, text, size) != NULL;
    }
    return 0;
}
#endif
