/*
 * timerfd_create, timerfd_settime, timerfd_gettime: timers read through a
 * file descriptor, with Linux's flags, clocks and errors (time/timerfd.c).
 */
#ifndef FULCRUM_TIME_TIMERFD_H
#define FULCRUM_TIME_TIMERFD_H

struct k_itimerspec;

long sys_timerfd_create(int clockid, int flags);
long sys_timerfd_settime(int fd, int flags, const struct k_itimerspec *unew,
			 struct k_itimerspec *uold);
long sys_timerfd_gettime(int fd, struct k_itimerspec *ucur);

#endif
