// hiredis 0.14. redisCommand and redisAsyncCommand are C-variadic: use the
// *Argv forms from Swift.
#ifndef MODGUD_CHIREDIS_SHIM_H
#define MODGUD_CHIREDIS_SHIM_H
#include <hiredis/hiredis.h>
#include <hiredis/async.h>
#endif
