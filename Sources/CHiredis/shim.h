// hiredis 0.14. redisCommand and redisAsyncCommand are C-variadic: use the
// *Argv or Formatted forms from Swift.
#ifndef MODGUD_CHIREDIS_SHIM_H
#define MODGUD_CHIREDIS_SHIM_H
#include <hiredis/hiredis.h>
#include <hiredis/async.h>

// The redisContext is embedded in the async context: Swift cannot portably
// take the address of a struct member reached through a pointer.
static inline int chiredis_enable_keepalive(redisAsyncContext *ac) {
    return redisEnableKeepAlive(&ac->c);
}

// REDIS_CONNECTED is a flag bit in an int field; one call reads it clearly.
static inline int chiredis_is_connected(const redisAsyncContext *ac) {
    return (ac->c.flags & REDIS_CONNECTED) != 0;
}
#endif
