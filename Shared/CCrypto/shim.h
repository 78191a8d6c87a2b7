#ifndef PUSHBUS_CCRYPTO_SHIM_H
#define PUSHBUS_CCRYPTO_SHIM_H
#include <openssl/hmac.h>
#include <openssl/evp.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>
#endif
