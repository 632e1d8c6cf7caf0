// OpenSSL 3's libcrypto, for CourierOpenSSL: the headers it calls, and wrappers for what Swift
// cannot import (a variadic function, macros that are expressions).
#ifndef COURIER_OPENSSL_SHIM_H
#define COURIER_OPENSSL_SHIM_H

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

/// A new P-256 key (EVP_EC_gen, which wraps the variadic EVP_PKEY_Q_keygen), or NULL.
static inline EVP_PKEY *courier_p256_generate(void) { return EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256"); }

static const int courier_evp_pkey_ec = EVP_PKEY_EC;
static const char *const courier_param_ec_pub_x = OSSL_PKEY_PARAM_EC_PUB_X;
static const char *const courier_param_ec_pub_y = OSSL_PKEY_PARAM_EC_PUB_Y;

#endif
