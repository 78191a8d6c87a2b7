#ifndef PUSHBUS_CCRYPTO_SHIM_H
#define PUSHBUS_CCRYPTO_SHIM_H
#include <openssl/hmac.h>
#include <openssl/evp.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <openssl/params.h>
#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/bn.h>
#include <openssl/err.h>

/// A fresh HMAC-SHA256 context of libcrypto's, not keyed yet; NULL if libcrypto has no HMAC or SHA-256.
static inline EVP_MAC_CTX *pushbus_hmac_sha256_context(void) {
    EVP_MAC *mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
    if (mac == NULL) return NULL;
    EVP_MAC_CTX *context = EVP_MAC_CTX_new(mac);
    EVP_MAC_free(mac);
    if (context == NULL) return NULL;
    OSSL_PARAM params[2] = {
        OSSL_PARAM_construct_utf8_string("digest", (char *)"SHA256", 0),
        OSSL_PARAM_construct_end(),
    };
    if (EVP_MAC_CTX_set_params(context, params) != 1) { EVP_MAC_CTX_free(context); return NULL; }
    return context;
}

/// The MAC of `head`, `separator` and `body` (a proof's command, "\n" and payload, joined by nobody)
/// into `out` (32 bytes), under `key`, or, when `key` is NULL, under the key `context` already
/// holds: libcrypto then starts from the digests of that key's pads instead of keying again.
/// Returns 1 on success.
static inline int pushbus_hmac_sha256_run(EVP_MAC_CTX *context, const void *key, size_t key_length,
                                          const void *head, size_t head_length,
                                          const void *separator, size_t separator_length,
                                          const void *body, size_t body_length,
                                          unsigned char *out) {
    size_t written = 0;
    return EVP_MAC_init(context, (const unsigned char *)key, key_length, NULL) == 1
        && EVP_MAC_update(context, (const unsigned char *)head, head_length) == 1
        && EVP_MAC_update(context, (const unsigned char *)separator, separator_length) == 1
        && EVP_MAC_update(context, (const unsigned char *)body, body_length) == 1
        && EVP_MAC_final(context, out, &written, 32) == 1
        && written == 32;
}

/// `key` as `EVP_MAC_init` must get it: a NULL key would mean "the key the context holds", so an
/// empty key (a key of no bytes, whose pointer may be NULL) becomes "".
static inline const unsigned char *pushbus_hmac_key_bytes(const void *key) {
    return (const unsigned char *)(key == NULL ? (const void *)"" : key);
}

/// HMAC-SHA256 of three parts under `key`, which changes from call to call (each device has its
/// own). OpenSSL 3's one-shot HMAC() looks the algorithm up by name on every call, which cost more
/// than the hashing itself; this keeps one context per thread and only re-keys it.
static inline int pushbus_hmac_sha256_parts(const void *key, size_t key_length,
                                            const void *head, size_t head_length,
                                            const void *separator, size_t separator_length,
                                            const void *body, size_t body_length,
                                            unsigned char *out) {
    static __thread EVP_MAC_CTX *context = NULL;
    if (context == NULL && (context = pushbus_hmac_sha256_context()) == NULL) return 0;
    return pushbus_hmac_sha256_run(context, pushbus_hmac_key_bytes(key), key_length,
                                   head, head_length, separator, separator_length, body, body_length, out);
}

/// A context keyed once with `key`, for `pushbus_hmac_sha256_keyed` (free it with
/// `EVP_MAC_CTX_free`); NULL on failure.
static inline EVP_MAC_CTX *pushbus_hmac_sha256_key(const void *key, size_t key_length) {
    EVP_MAC_CTX *context = pushbus_hmac_sha256_context();
    if (context == NULL) return NULL;
    if (EVP_MAC_init(context, pushbus_hmac_key_bytes(key), key_length, NULL) != 1) {
        EVP_MAC_CTX_free(context);
        return NULL;
    }
    return context;
}

/// `pushbus_hmac_sha256_parts` under the key `context` was made with (`pushbus_hmac_sha256_key`).
static inline int pushbus_hmac_sha256_keyed(EVP_MAC_CTX *context,
                                            const void *head, size_t head_length,
                                            const void *separator, size_t separator_length,
                                            const void *body, size_t body_length,
                                            unsigned char *out) {
    return pushbus_hmac_sha256_run(context, NULL, 0, head, head_length, separator, separator_length, body, body_length, out);
}
#endif
