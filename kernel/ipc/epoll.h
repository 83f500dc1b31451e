/*
 * epoll(7): epoll_create, epoll_create1, epoll_ctl, epoll_wait and
 * epoll_pwait with Linux's structures and errors, level-triggered
 * (ipc/epoll.c).
 */
#ifndef FULCRUM_IPC_EPOLL_H
#define FULCRUM_IPC_EPOLL_H

#include "lib/types.h"

struct epoll_event;

long sys_epoll_create1(int flags);
long sys_epoll_create(int size);
long sys_epoll_ctl(int epfd, int op, int fd, struct epoll_event *uev);
long sys_epoll_wait(int epfd, struct epoll_event *uevents, int maxevents, int timeout_ms);
long sys_epoll_pwait(int epfd, struct epoll_event *uevents, int maxevents, int timeout_ms,
		     const u64 *usigmask, size_t sigsetsize);

#endif
