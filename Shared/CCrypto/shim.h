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

/// HMAC-SHA256 of `prefix` followed by `body` under `key`, into `out` (32 bytes). Returns 1 on
/// success. OpenSSL 3's one-shot HMAC() looks the algorithm up by name on every call, which cost
/// more than the hashing itself; this keeps one initialised context per thread and only re-keys it.
/// The same over three parts, `head`, `separator` and `body` (a proof's command, "\n" and payload),
/// so the caller joins nothing.
static inline int pushbus_hmac_sha256_parts(const void *key, size_t key_length,
                                            const void *head, size_t head_length,
                                            const void *separator, size_t separator_length,
                                            const void *body, size_t body_length,
                                            unsigned char *out);

static inline int pushbus_hmac_sha256(const void *key, size_t key_length,
                                      const void *prefix, size_t prefix_length,
                                      const void *body, size_t body_length,
                                      unsigned char *out) {
    return pushbus_hmac_sha256_parts(key, key_length, prefix, prefix_length, "", 0, body, body_length, out);
}

static inline int pushbus_hmac_sha256_parts(const void *key, size_t key_length,
                                            const void *head, size_t head_length,
                                            const void *separator, size_t separator_length,
                                            const void *body, size_t body_length,
                                            unsigned char *out) {
    static __thread EVP_MAC_CTX *context = NULL;
    if (context == NULL) {
        EVP_MAC *mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
        if (mac == NULL) return 0;
        EVP_MAC_CTX *fresh = EVP_MAC_CTX_new(mac);
        EVP_MAC_free(mac);
        if (fresh == NULL) return 0;
        OSSL_PARAM params[2] = {
            OSSL_PARAM_construct_utf8_string("digest", (char *)"SHA256", 0),
            OSSL_PARAM_construct_end(),
        };
        if (EVP_MAC_CTX_set_params(fresh, params) != 1) { EVP_MAC_CTX_free(fresh); return 0; }
        context = fresh;
    }
    size_t written = 0;
    return EVP_MAC_init(context, (const unsigned char *)key, key_length, NULL) == 1
        && EVP_MAC_update(context, (const unsigned char *)head, head_length) == 1
        && EVP_MAC_update(context, (const unsigned char *)separator, separator_length) == 1
        && EVP_MAC_update(context, (const unsigned char *)body, body_length) == 1
        && EVP_MAC_final(context, out, &written, 32) == 1
        && written == 32;
}
#endif
