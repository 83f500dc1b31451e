/* prctl, getrandom, getgroups and setgroups (sys_prctl.c), with Linux's arguments. */
#ifndef FULCRUM_PROC_SYS_PRCTL_H
#define FULCRUM_PROC_SYS_PRCTL_H

#include "lib/types.h"

/*
 * PR_SET/GET_PDEATHSIG, PR_SET/GET_NAME, PR_SET/GET_TIMERSLACK,
 * PR_SET/GET_NO_NEW_PRIVS, PR_GET/SET_DUMPABLE; any other option -EINVAL.
 */
long sys_prctl(int option, unsigned long arg2, unsigned long arg3, unsigned long arg4,
	       unsigned long arg5);
/* count bytes (at most MAX_RW_COUNT) from RDSEED/RDRAND, or a seeded generator: never blocks. */
long sys_getrandom(char *ubuf, size_t count, unsigned int flags);
long sys_getgroups(int size, u32 *ulist);
long sys_setgroups(int size, const u32 *ulist);

#endif
