#ifndef PUSHBUS_CTLS_SHIM_H
#define PUSHBUS_CTLS_SHIM_H
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <netdb.h>

// OpenSSL's setters below are macros over SSL_ctrl, which Swift cannot call: one typed function each.

/// TLS 1.2 at least (APNs requires it), partial writes (a non-blocking SSL_write may take part of
/// a buffer) and a buffer that may move between a write that wanted to wait and its retry.
static inline int pushbus_tls_configure(SSL_CTX *context) {
    SSL_CTX_set_mode(context, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    return SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION);
}

/// The server name sent in the handshake (SNI); never an IP address (RFC 6066 §3).
static inline int pushbus_tls_set_server_name(SSL *ssl, const char *name) {
    return SSL_set_tlsext_host_name(ssl, name);
}

/// The last error OpenSSL queued on this thread, as text into `buffer` (empty when none); clears the queue.
static inline void pushbus_tls_error_text(char *buffer, size_t length) {
    unsigned long code = ERR_get_error();
    buffer[0] = 0;
    if (code != 0) ERR_error_string_n(code, buffer, length);
    ERR_clear_error();
}

#endif
