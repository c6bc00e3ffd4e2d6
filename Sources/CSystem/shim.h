// What Swift's Glibc module does not export on this toolchain (it is built
// without _GNU_SOURCE): epoll, eventfd, accept4 and a few helpers.
#ifndef MODGUD_CSYSTEM_SHIM_H
#define MODGUD_CSYSTEM_SHIM_H

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/resource.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <errno.h>
#include <pthread.h>

// accept4 is declared only under _GNU_SOURCE, which the Glibc module lacks.
extern int accept4(int sockfd, struct sockaddr *addr, socklen_t *addrlen, int flags);

// pthread_setname_np is declared only under _GNU_SOURCE too.
extern int pthread_setname_np(pthread_t thread, const char *name);

// sched_getaffinity and sched_setaffinity are declared only under
// _GNU_SOURCE too; a mask is plain bytes here, one bit per processor.
extern int sched_getaffinity(int pid, size_t size, void *mask);
extern int sched_setaffinity(int pid, size_t size, const void *mask);

// The processors the calling thread may run on, or 0 when the mask cannot be read.
static inline int csystem_affinity_count(void) {
    unsigned char mask[128];
    if (sched_getaffinity(0, sizeof mask, mask) != 0) return 0;
    int count = 0;
    for (unsigned i = 0; i < sizeof mask; i++) count += __builtin_popcount(mask[i]);
    return count;
}

// errno is a macro over a thread-local function: read it through a function.
static inline int csystem_errno(void) { return errno; }

// The epoll_event data member is a union: give Swift a plain setter/getter.
static inline void csystem_epoll_event_set(struct epoll_event *ev, uint32_t events, uint64_t u64) {
    ev->events = events;
    ev->data.u64 = u64;
}
static inline uint64_t csystem_epoll_event_u64(const struct epoll_event *ev) { return ev->data.u64; }
static inline uint32_t csystem_epoll_event_events(const struct epoll_event *ev) { return ev->events; }

#endif
