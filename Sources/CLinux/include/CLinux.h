#ifndef SPECD_CLINUX_H
#define SPECD_CLINUX_H

#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

/* Linux-only calls that Swift's Glibc module does not expose (epoll, eventfd, accept4), wrapped so Swift never
   touches the packed epoll_event union. */

enum {
    SPECD_EV_READ = 1,
    SPECD_EV_WRITE = 2,
    SPECD_EV_HANGUP = 4,
    SPECD_EV_ERROR = 8,
    /* Interest: report readiness edge-triggered (EPOLLET), once each time it arises, not on every wait while it
       holds. */
    SPECD_EV_EDGE = 16,
    /* Event: the peer shut its side down (EPOLLRDHUP); reported with SPECD_EV_READ. */
    SPECD_EV_PEER_SHUTDOWN = 32,
    /* Event: urgent (out-of-band) data waits (EPOLLPRI), at whose mark a read stops short; reported with
       SPECD_EV_READ. */
    SPECD_EV_URGENT = 64,
};

int specd_epoll_create(void);
/* op: 0 add, 1 modify, 2 delete. interest: SPECD_EV_READ | SPECD_EV_WRITE | SPECD_EV_EDGE. A modify looks at the
   descriptor again and reports it if the new interest holds now, edge-triggered or not. */
int specd_epoll_ctl(int epfd, int op, int fd, uint32_t interest);
/* Fills fds[i] and events[i] (SPECD_EV_* bits) for up to max ready descriptors. */
int specd_epoll_wait(int epfd, int *fds, uint32_t *events, int max, int timeout_ms);
int specd_eventfd(void);
/* read(2) and send(2) made straight through syscall(2), which is no cancellation point: glibc's wrappers turn the
   thread's asynchronous cancellation on and off around every call (two atomic read-modify-writes, some 90
   instructions a request on the event loop), and specd never cancels a thread. Same results and errno. */
ssize_t specd_read(int fd, void *buffer, size_t count);
ssize_t specd_send(int fd, const void *buffer, size_t count, int flags);
int specd_accept4(int fd, struct sockaddr *address, socklen_t *length);
/* CPUs this process may run on (sched_getaffinity), or -1 when it cannot be read. */
int specd_affinity_cpu_count(void);

/* Whether this thread may run on `cpu` (1) or not (0). */
int specd_cpu_allowed(int cpu);

/* How many times the calling thread was switched out while runnable (getrusage RUSAGE_THREAD, ru_nivcsw): a
   yield that let another task run counts one. -1 when it cannot be read. */
long specd_thread_involuntary_switches(void);

/* Pins the calling thread to `cpu` (sched_setaffinity on the thread); 0, or -1 on failure. For tests. */
int specd_pin_current_thread(int cpu);
/* Names the calling thread as `top -H`, `ps -L` and profilers show it (/proc/self/task/N/comm). The kernel keeps
   15 bytes: a longer name is cut there, at a UTF-8 character boundary, where pthread_setname_np would refuse it
   whole. Returns 0, or the error. */
int specd_name_current_thread(const char *name);

/* Starts writing the file's dirty pages to its device and returns without waiting for them (sync_file_range with
   SYNC_FILE_RANGE_WRITE over the whole file): a data sync made afterwards waits only for what is still out. 0, or
   -1 with errno (-1 where there is no such call). */
int specd_start_writeback(int fd);

#endif
