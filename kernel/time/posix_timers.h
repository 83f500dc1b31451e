/*
 * POSIX timers (timer_create and friends) with Linux's sigevent, clocks
 * and errors; time/posix_timers.c.
 */
#ifndef FULCRUM_TIME_POSIX_TIMERS_H
#define FULCRUM_TIME_POSIX_TIMERS_H

struct process;
struct k_sigevent;
struct k_itimerspec;

/* Deletes every timer of p: its last thread exits, or it execs. */
void posix_timers_exit(struct process *p);

long sys_timer_create(int clockid, const struct k_sigevent *uev, int *uid);
long sys_timer_settime(int id, int flags, const struct k_itimerspec *unew, struct k_itimerspec *uold);
long sys_timer_gettime(int id, struct k_itimerspec *ucur);
long sys_timer_getoverrun(int id);
long sys_timer_delete(int id);

#endif
