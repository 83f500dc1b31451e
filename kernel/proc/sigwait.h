/* rt_sigtimedwait: wait for and take one signal of a set (proc/sigwait.c). */
#ifndef FULCRUM_PROC_SIGWAIT_H
#define FULCRUM_PROC_SIGWAIT_H

#include "lib/types.h"

struct k_siginfo;
struct k_timespec;

long sys_rt_sigtimedwait(const u64 *uset, struct k_siginfo *uinfo, const struct k_timespec *uts,
			 size_t sigsetsize);

#endif
