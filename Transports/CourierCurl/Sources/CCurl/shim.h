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

typedef int (*courier_curl_closesocket_callback)(void *userdata, curl_socket_t socket);

static inline CURLcode courier_easy_setopt_closesocket_callback(CURL *handle,
                                                                courier_curl_closesocket_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_CLOSESOCKETFUNCTION, callback);
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

typedef int (*courier_curl_socket_callback)(CURL *easy, curl_socket_t socket, int what, void *userdata,
                                            void *socketdata);
typedef int (*courier_curl_timer_callback)(CURLM *multi, long timeout_ms, void *userdata);

static inline CURLMcode courier_multi_setopt_socket_callback(CURLM *handle, courier_curl_socket_callback callback) {
    return curl_multi_setopt(handle, CURLMOPT_SOCKETFUNCTION, callback);
}

static inline CURLMcode courier_multi_setopt_timer_callback(CURLM *handle, courier_curl_timer_callback callback) {
    return curl_multi_setopt(handle, CURLMOPT_TIMERFUNCTION, callback);
}

static inline CURLMcode courier_multi_setopt_pointer(CURLM *handle, CURLMoption option, void *value) {
    return curl_multi_setopt(handle, option, value);
}

#ifdef __linux__
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

// The loop's poller: epoll, whose set another thread may change while the loop waits on it
// (a task that sends a request registers its socket without waking the loop), and an
// eventfd that wakes it. `struct epoll_event` is packed on x86-64, so Swift never sees it.

/// Watches `fd` for `events` (EPOLLIN, EPOLLOUT), adding it or changing what is watched.
static inline int courier_poller_watch(int poller, int fd, uint32_t events) {
    struct epoll_event event = {0};
    event.events = events;
    event.data.fd = fd;
    if (epoll_ctl(poller, EPOLL_CTL_MOD, fd, &event) == 0) return 0;
    return epoll_ctl(poller, EPOLL_CTL_ADD, fd, &event);
}

static inline int courier_poller_unwatch(int poller, int fd) {
    return epoll_ctl(poller, EPOLL_CTL_DEL, fd, NULL);
}

/// Waits up to `timeout` ms; fills `fds` and `events` (at most `capacity`, at most 64) and
/// returns how many are ready, or -1.
static inline int courier_poller_wait(int poller, int *fds, uint32_t *events, int capacity, int timeout) {
    struct epoll_event ready[64];
    if (capacity > 64) capacity = 64;
    int count = epoll_wait(poller, ready, capacity, timeout);
    for (int index = 0; index < count; index++) {
        fds[index] = ready[index].data.fd;
        events[index] = ready[index].events;
    }
    return count;
}

static inline int courier_poller_create(void) { return epoll_create1(EPOLL_CLOEXEC); }
static inline int courier_wakeup_create(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

static inline void courier_wakeup_signal(int fd) {
    uint64_t one = 1;
    ssize_t written = write(fd, &one, sizeof one);
    (void)written;
}

static inline void courier_wakeup_drain(int fd) {
    uint64_t count;
    ssize_t read_bytes = read(fd, &count, sizeof count);
    (void)read_bytes;
}

static const uint32_t courier_poll_in = EPOLLIN;
static const uint32_t courier_poll_out = EPOLLOUT;
static const uint32_t courier_poll_error = EPOLLERR | EPOLLHUP;
#endif

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
