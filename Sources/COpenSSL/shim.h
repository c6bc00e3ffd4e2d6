// OpenSSL 3 headers the Crypto target wraps. Function-like macros do not
// import into Swift; add static inline wrappers here as the Crypto target
// needs them, each with a comment saying which macro it stands for.
#ifndef MODGUD_COPENSSL_SHIM_H
#define MODGUD_COPENSSL_SHIM_H
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/hmac.h>
#include <openssl/kdf.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include <openssl/param_build.h>
#include <openssl/err.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <openssl/bn.h>
#include <openssl/ecdsa.h>

// EVP_PKEY_PUBLIC_KEY is a macro OR-ing two other macros, which Swift does not import.
static inline int modgud_evp_pkey_public_key_selection(void) {
    return EVP_PKEY_PUBLIC_KEY;
}
#endif
