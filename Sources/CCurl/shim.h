// libcurl. curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are
// C-variadic, which Swift cannot call: typed static inline wrappers follow,
// one per argument type the variadic call must receive exactly.
#ifndef MODGUD_CCURL_SHIM_H
#define MODGUD_CCURL_SHIM_H
#include <curl/curl.h>

static inline CURLcode ccurl_easy_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_easy_setopt_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_easy_setopt_pointer(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_easy_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_easy_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode ccurl_easy_getinfo_pointer(CURL *h, CURLINFO i, void **v) { return curl_easy_getinfo(h, i, v); }
static inline CURLMcode ccurl_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }
static inline CURLMcode ccurl_multi_setopt_pointer(CURLM *m, CURLMoption o, void *v) { return curl_multi_setopt(m, o, v); }

// *_LARGE options take a curl_off_t through the variadic call, not a long.
static inline CURLcode ccurl_easy_setopt_off_t(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
// *_T infos write a curl_off_t: the variadic getinfo needs that pointer type.
static inline CURLcode ccurl_easy_getinfo_off_t(CURL *h, CURLINFO i, curl_off_t *v) { return curl_easy_getinfo(h, i, v); }
// Write and header callbacks: a function pointer cannot travel as void * from Swift.
static inline CURLcode ccurl_easy_setopt_write_function(CURL *h, CURLoption o, curl_write_callback f) { return curl_easy_setopt(h, o, f); }
// The read callback, for the same reason (CURLOPT_READFUNCTION).
static inline CURLcode ccurl_easy_setopt_read_function(CURL *h, curl_read_callback f) { return curl_easy_setopt(h, CURLOPT_READFUNCTION, f); }
// The seek callback that lets curl rewind a body to resend it on a fresh connection.
static inline CURLcode ccurl_easy_setopt_seek_function(CURL *h, curl_seek_callback f) { return curl_easy_setopt(h, CURLOPT_SEEKFUNCTION, f); }
// The multi socket callback (CURLMOPT_SOCKETFUNCTION), a function pointer.
static inline CURLMcode ccurl_multi_setopt_socket_function(CURLM *m, curl_socket_callback f) { return curl_multi_setopt(m, CURLMOPT_SOCKETFUNCTION, f); }
// The multi timer callback (CURLMOPT_TIMERFUNCTION), a function pointer.
static inline CURLMcode ccurl_multi_setopt_timer_function(CURLM *m, curl_multi_timer_callback f) { return curl_multi_setopt(m, CURLMOPT_TIMERFUNCTION, f); }
// The open-socket callback (CURLOPT_OPENSOCKETFUNCTION), a function pointer.
static inline CURLcode ccurl_easy_setopt_opensocket_function(CURL *h, curl_opensocket_callback f) { return curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, f); }
#endif
