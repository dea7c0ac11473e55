#define _GNU_SOURCE
#include "CLinux.h"
#include <unistd.h>

#ifdef __linux__
#include <sys/resource.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/syscall.h>
#include <fcntl.h>

int specd_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int specd_epoll_ctl(int epfd, int op, int fd, uint32_t interest) {
    struct epoll_event event = {0};
    if (interest & SPECD_EV_READ) event.events |= EPOLLIN | EPOLLRDHUP | EPOLLPRI;
    if (interest & SPECD_EV_WRITE) event.events |= EPOLLOUT;
    if (interest & SPECD_EV_EDGE) event.events |= EPOLLET;
    event.data.fd = fd;
    int code = op == 0 ? EPOLL_CTL_ADD : op == 1 ? EPOLL_CTL_MOD : EPOLL_CTL_DEL;
    return epoll_ctl(epfd, code, fd, &event);
}

int specd_epoll_wait(int epfd, int *fds, uint32_t *events, int max, int timeout_ms) {
    struct epoll_event ready[512];
    if (max > 512) max = 512;
    /* epoll_pwait with no signal mask is epoll_wait (the only form some architectures have), made through
       syscall(2) for the reason specd_read is (CLinux.h). */
    int count = (int)syscall(SYS_epoll_pwait, epfd, ready, max, timeout_ms, NULL, (size_t)8);
    for (int i = 0; i < count; i++) {
        uint32_t bits = 0;
        if (ready[i].events & (EPOLLIN | EPOLLRDHUP | EPOLLPRI)) bits |= SPECD_EV_READ;
        if (ready[i].events & EPOLLOUT) bits |= SPECD_EV_WRITE;
        if (ready[i].events & EPOLLRDHUP) bits |= SPECD_EV_PEER_SHUTDOWN;
        if (ready[i].events & EPOLLPRI) bits |= SPECD_EV_URGENT;
        if (ready[i].events & EPOLLHUP) bits |= SPECD_EV_HANGUP;
        if (ready[i].events & EPOLLERR) bits |= SPECD_EV_ERROR;
        fds[i] = ready[i].data.fd;
        events[i] = bits;
    }
    return count;
}

int specd_eventfd(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

ssize_t specd_read(int fd, void *buffer, size_t count) { return (ssize_t)syscall(SYS_read, fd, buffer, count); }

ssize_t specd_send(int fd, const void *buffer, size_t count, int flags) {
    return (ssize_t)syscall(SYS_sendto, fd, buffer, count, flags, NULL, (socklen_t)0);
}

int specd_accept4(int fd, struct sockaddr *address, socklen_t *length) {
    return accept4(fd, address, length, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

int specd_affinity_cpu_count(void) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) != 0) return -1;
    return CPU_COUNT(&set);
}

int specd_cpu_allowed(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (cpu < 0 || cpu >= CPU_SETSIZE || sched_getaffinity(0, sizeof(set), &set) != 0) return 0;
    return CPU_ISSET(cpu, &set) ? 1 : 0;
}

long specd_thread_involuntary_switches(void) {
    struct rusage usage;
    if (getrusage(RUSAGE_THREAD, &usage) != 0) return -1;
    return usage.ru_nivcsw;
}

int specd_pin_current_thread(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (cpu < 0 || cpu >= CPU_SETSIZE) return -1;
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof(set), &set);
}

int specd_name_current_thread(const char *name) {
    char kept[16];
    size_t length = strlen(name);
    if (length > 15) {
        length = 15;
        /* Not inside a character: back over continuation bytes (10xxxxxx) to the start of the cut one. */
        while (length > 0 && ((unsigned char)name[length] & 0xC0) == 0x80) length--;
    }
    memcpy(kept, name, length);
    kept[length] = 0;
    return pthread_setname_np(pthread_self(), kept);
}

int specd_start_writeback(int fd) { return sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE); }

#else
int specd_start_writeback(int fd) { return -1; }
int specd_name_current_thread(const char *name) { return -1; }
int specd_epoll_create(void) { return -1; }
int specd_epoll_ctl(int epfd, int op, int fd, uint32_t interest) { return -1; }
int specd_epoll_wait(int epfd, int *fds, uint32_t *events, int max, int timeout_ms) { return -1; }
int specd_eventfd(void) { return -1; }
ssize_t specd_read(int fd, void *buffer, size_t count) { return read(fd, buffer, count); }
ssize_t specd_send(int fd, const void *buffer, size_t count, int flags) { return send(fd, buffer, count, flags); }
int specd_accept4(int fd, struct sockaddr *address, socklen_t *length) { return -1; }
int specd_affinity_cpu_count(void) { return -1; }
int specd_cpu_allowed(int cpu) { return 0; }
int specd_pin_current_thread(int cpu) { return -1; }
long specd_thread_involuntary_switches(void) { return -1; }
#endif
