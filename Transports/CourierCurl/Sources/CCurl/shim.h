// Typed wrappers around libcurl's variadic setters and getters, which Swift cannot call.
// Each wrapper fixes the type of the value, so a caller cannot pass a long where libcurl
// reads a pointer (or the reverse), which the variadic functions would not notice.
#ifndef COURIER_CURL_SHIM_H
#define COURIER_CURL_SHIM_H

#include <curl/curl.h>

typedef size_t (*courier_curl_data_callback)(char *buffer, size_t size, size_t count, void *userdata);
typedef int (*courier_curl_seek_callback)(void *userdata, curl_off_t offset, int origin);
typedef int (*courier_curl_prereq_callback)(void *userdata, char *conn_primary_ip, char *conn_local_ip,
                                            int conn_primary_port, int conn_local_port);

static inline CURLcode courier_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode courier_easy_setopt_off(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode courier_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode courier_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode courier_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode courier_easy_setopt_data_callback(CURL *handle, CURLoption option,
                                                         courier_curl_data_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

static inline CURLcode courier_easy_setopt_seek_callback(CURL *handle, courier_curl_seek_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_SEEKFUNCTION, callback);
}

static inline CURLcode courier_easy_setopt_prereq_callback(CURL *handle, courier_curl_prereq_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_PREREQFUNCTION, callback);
}

typedef curl_socket_t (*courier_curl_opensocket_callback)(void *userdata, curlsocktype purpose,
                                                          struct curl_sockaddr *address);

static inline CURLcode courier_easy_setopt_opensocket_callback(CURL *handle,
                                                               courier_curl_opensocket_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, callback);
}

static inline CURLcode courier_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode courier_easy_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode courier_easy_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLMcode courier_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
    return curl_multi_setopt(handle, option, value);
}

// Values of macros that Swift does not import (they are casts or expressions).
static const int courier_curl_seekfunc_ok = CURL_SEEKFUNC_OK;
static const int courier_curl_seekfunc_cantseek = CURL_SEEKFUNC_CANTSEEK;
static const int courier_curl_prereqfunc_ok = CURL_PREREQFUNC_OK;
static const int courier_curl_prereqfunc_abort = CURL_PREREQFUNC_ABORT;
static const size_t courier_curl_readfunc_abort = CURL_READFUNC_ABORT;
static const long courier_curl_global_all = CURL_GLOBAL_ALL;
static const curl_socket_t courier_curl_socket_bad = CURL_SOCKET_BAD;
static const long courier_curlpipe_multiplex = CURLPIPE_MULTIPLEX;
static const CURLversion courier_curlversion_now = CURLVERSION_NOW;

#endif
