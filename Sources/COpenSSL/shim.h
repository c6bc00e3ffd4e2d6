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
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

// EVP_PKEY_PUBLIC_KEY is a macro OR-ing two other macros, which Swift does not import.
static inline int modgud_evp_pkey_public_key_selection(void) {
    return EVP_PKEY_PUBLIC_KEY;
}

// SSL_set_tlsext_host_name is a macro over SSL_ctrl.
static inline int modgud_ssl_set_sni(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

// SSL_CTX_set_min_proto_version is a macro over SSL_CTX_ctrl.
static inline int modgud_ssl_ctx_min_tls12(SSL_CTX *ctx) {
    return (int)SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
}

// SSL_set_mode is a macro over SSL_ctrl: partial writes, and a retried
// write may come from another address (the caller's buffer moves).
static inline void modgud_ssl_set_partial_writes(SSL *ssl) {
    SSL_set_mode(ssl, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
}
#endif
