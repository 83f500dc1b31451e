/*
 * The system-call table's bookkeeping: Linux x86-64 numbers the table
 * knows by name, and the calls to numbers it does not know.
 */
#ifndef FULCRUM_PROC_SYSCALL_H
#define FULCRUM_PROC_SYSCALL_H

#include <arch/user.h>

#include "lib/types.h"

/* Linux x86-64 system-call numbers (arch/x86/entry/syscalls/syscall_64.tbl). */
#define SYS_read		   0
#define SYS_write		   1
#define SYS_open		   2
#define SYS_close		   3
#define SYS_stat		   4
#define SYS_fstat		   5
#define SYS_lstat		   6
#define SYS_poll		   7
#define SYS_lseek		   8
#define SYS_mmap		   9
#define SYS_mprotect		   10
#define SYS_munmap		   11
#define SYS_brk			   12
#define SYS_rt_sigaction	   13
#define SYS_rt_sigprocmask	   14
#define SYS_rt_sigreturn	   15
#define SYS_ioctl		   16
#define SYS_pread64		   17
#define SYS_pwrite64		   18
#define SYS_readv		   19
#define SYS_writev		   20
#define SYS_access		   21
#define SYS_pipe		   22
#define SYS_select		   23
#define SYS_sched_yield		   24
#define SYS_mremap		   25
#define SYS_msync		   26
#define SYS_mincore		   27
#define SYS_madvise		   28
#define SYS_dup			   32
#define SYS_dup2		   33
#define SYS_pause		   34
#define SYS_nanosleep		   35
#define SYS_getitimer		   36
#define SYS_alarm		   37
#define SYS_setitimer		   38
#define SYS_getpid		   39
#define SYS_sendfile		   40
#define SYS_socket		   41
#define SYS_connect		   42
#define SYS_accept		   43
#define SYS_sendto		   44
#define SYS_recvfrom		   45
#define SYS_sendmsg		   46
#define SYS_recvmsg		   47
#define SYS_shutdown		   48
#define SYS_bind		   49
#define SYS_listen		   50
#define SYS_getsockname		   51
#define SYS_getpeername		   52
#define SYS_socketpair		   53
#define SYS_setsockopt		   54
#define SYS_getsockopt		   55
#define SYS_clone		   56
#define SYS_fork		   57
#define SYS_vfork		   58
#define SYS_execve		   59
#define SYS_exit		   60
#define SYS_wait4		   61
#define SYS_kill		   62
#define SYS_uname		   63
#define SYS_fcntl		   72
#define SYS_flock		   73
#define SYS_fsync		   74
#define SYS_fdatasync		   75
#define SYS_truncate		   76
#define SYS_ftruncate		   77
#define SYS_getdents		   78
#define SYS_getcwd		   79
#define SYS_chdir		   80
#define SYS_fchdir		   81
#define SYS_rename		   82
#define SYS_mkdir		   83
#define SYS_rmdir		   84
#define SYS_creat		   85
#define SYS_link		   86
#define SYS_unlink		   87
#define SYS_symlink		   88
#define SYS_readlink		   89
#define SYS_chmod		   90
#define SYS_fchmod		   91
#define SYS_chown		   92
#define SYS_umask		   95
#define SYS_gettimeofday	   96
#define SYS_getrlimit		   97
#define SYS_getrusage		   98
#define SYS_sysinfo		   99
#define SYS_times		   100
#define SYS_getuid		   102
#define SYS_syslog		   103
#define SYS_getgid		   104
#define SYS_setuid		   105
#define SYS_setgid		   106
#define SYS_geteuid		   107
#define SYS_getegid		   108
#define SYS_setpgid		   109
#define SYS_getppid		   110
#define SYS_getpgrp		   111
#define SYS_setsid		   112
#define SYS_getpgid		   121
#define SYS_getsid		   124
#define SYS_getgroups		   115
#define SYS_setgroups		   116
#define SYS_rt_sigpending	   127
#define SYS_rt_sigtimedwait	   128
#define SYS_rt_sigqueueinfo	   129
#define SYS_rt_sigsuspend	   130
#define SYS_sigaltstack		   131
#define SYS_personality		   135
#define SYS_statfs		   137
#define SYS_fstatfs		   138
#define SYS_getpriority		   140
#define SYS_setpriority		   141
#define SYS_sched_setparam	   142
#define SYS_sched_getparam	   143
#define SYS_sched_setscheduler	   144
#define SYS_sched_getscheduler	   145
#define SYS_sched_get_priority_max 146
#define SYS_sched_get_priority_min 147
#define SYS_sched_rr_get_interval  148
#define SYS_mlock		   149
#define SYS_munlock		   150
#define SYS_mlockall		   151
#define SYS_munlockall		   152
#define SYS_prctl		   157
#define SYS_arch_prctl		   158
#define SYS_setrlimit		   160
#define SYS_sync		   162
#define SYS_reboot		   169
#define SYS_sethostname		   170
#define SYS_gettid		   186
#define SYS_tkill		   200
#define SYS_time		   201
#define SYS_futex		   202
#define SYS_sched_setaffinity	   203
#define SYS_sched_getaffinity	   204
#define SYS_epoll_create	   213
#define SYS_getdents64		   217
#define SYS_set_tid_address	   218
#define SYS_restart_syscall	   219
#define SYS_timer_create	   222
#define SYS_timer_settime	   223
#define SYS_timer_gettime	   224
#define SYS_timer_getoverrun	   225
#define SYS_timer_delete	   226
#define SYS_clock_settime	   227
#define SYS_clock_gettime	   228
#define SYS_clock_getres	   229
#define SYS_clock_nanosleep	   230
#define SYS_exit_group		   231
#define SYS_epoll_wait		   232
#define SYS_epoll_ctl		   233
#define SYS_tgkill		   234
#define SYS_openat		   257
#define SYS_mkdirat		   258
#define SYS_newfstatat		   262
#define SYS_unlinkat		   263
#define SYS_renameat		   264
#define SYS_linkat		   265
#define SYS_symlinkat		   266
#define SYS_readlinkat		   267
#define SYS_fchmodat		   268
#define SYS_faccessat		   269
#define SYS_pselect6		   270
#define SYS_ppoll		   271
#define SYS_set_robust_list	   273
#define SYS_get_robust_list	   274
#define SYS_utimensat		   280
#define SYS_epoll_pwait		   281
#define SYS_timerfd_create	   283
#define SYS_eventfd		   284
#define SYS_timerfd_settime	   286
#define SYS_timerfd_gettime	   287
#define SYS_eventfd2		   290
#define SYS_epoll_create1	   291
#define SYS_pipe2		   293
#define SYS_dup3		   292
#define SYS_prlimit64		   302
#define SYS_syncfs		   306
#define SYS_getcpu		   309
#define SYS_sched_setattr	   314
#define SYS_sched_getattr	   315
#define SYS_renameat2		   316
#define SYS_getrandom		   318
#define SYS_membarrier		   324
#define SYS_mlock2		   325
#define SYS_statx		   332
#define SYS_rseq		   334
#define SYS_clone3		   435
#define SYS_faccessat2		   439

/* Numbers below this index the table; any other number is unknown. */
#define NR_SYSCALLS 512

/* Calls of number nr the table did not know (numbers outside it share one count). */
u64 syscall_unknown_count(long nr);

struct user_regs;
typedef long (*syscall_fn)(struct user_regs *regs);

struct syscall_entry {
	long nr;
	syscall_fn fn;
	const char *name;
};

/*
 * Each file registers its own system calls beside their code; the table
 * is built from the "syscalls" section at boot (syscall_init). A call
 * that needs the registers (fork, execve, rt_sigreturn) is a syscall_fn
 * registered with SYSCALL_REGISTER; the others are long sys_<name>(...)
 * with Linux's argument order and types, wrapped by SYSCALL_DEFINEn:
 *
 *	long sys_read(int fd, void *buf, size_t count) { ... }
 *	SYSCALL_DEFINE3(read, int, void *, size_t);
 */
#define SYSCALL_REGISTER(nr_, fn_)                                                    \
	static const struct syscall_entry __syscall_entry_##fn_ __attribute__((used)) \
	__attribute__((section("syscalls"), aligned(8))) = { (nr_), (fn_), #fn_ }

#define SYSCALL_ARG(r, i, t) ((t)user_regs_arg((r), (i)))

#define SYSCALL_DEFINE0(name)                        \
	static long call_##name(struct user_regs *r) \
	{                                            \
		return sys_##name();                 \
	}                                            \
	SYSCALL_REGISTER(SYS_##name, call_##name)
#define SYSCALL_DEFINE1(name, t0)                         \
	static long call_##name(struct user_regs *r)      \
	{                                                 \
		return sys_##name(SYSCALL_ARG(r, 0, t0)); \
	}                                                 \
	SYSCALL_REGISTER(SYS_##name, call_##name)
#define SYSCALL_DEFINE2(name, t0, t1)                                            \
	static long call_##name(struct user_regs *r)                             \
	{                                                                        \
		return sys_##name(SYSCALL_ARG(r, 0, t0), SYSCALL_ARG(r, 1, t1)); \
	}                                                                        \
	SYSCALL_REGISTER(SYS_##name, call_##name)
#define SYSCALL_DEFINE3(name, t0, t1, t2)                                       \
	static long call_##name(struct user_regs *r)                            \
	{                                                                       \
		return sys_##name(SYSCALL_ARG(r, 0, t0), SYSCALL_ARG(r, 1, t1), \
				  SYSCALL_ARG(r, 2, t2));                       \
	}                                                                       \
	SYSCALL_REGISTER(SYS_##name, call_##name)
#define SYSCALL_DEFINE4(name, t0, t1, t2, t3)                                    \
	static long call_##name(struct user_regs *r)                             \
	{                                                                        \
		return sys_##name(SYSCALL_ARG(r, 0, t0), SYSCALL_ARG(r, 1, t1),  \
				  SYSCALL_ARG(r, 2, t2), SYSCALL_ARG(r, 3, t3)); \
	}                                                                        \
	SYSCALL_REGISTER(SYS_##name, call_##name)
#define SYSCALL_DEFINE5(name, t0, t1, t2, t3, t4)                               \
	static long call_##name(struct user_regs *r)                            \
	{                                                                       \
		return sys_##name(SYSCALL_ARG(r, 0, t0), SYSCALL_ARG(r, 1, t1), \
				  SYSCALL_ARG(r, 2, t2), SYSCALL_ARG(r, 3, t3), \
				  SYSCALL_ARG(r, 4, t4));                       \
	}                                                                       \
	SYSCALL_REGISTER(SYS_##name, call_##name)
#define SYSCALL_DEFINE6(name, t0, t1, t2, t3, t4, t5)                            \
	static long call_##name(struct user_regs *r)                             \
	{                                                                        \
		return sys_##name(SYSCALL_ARG(r, 0, t0), SYSCALL_ARG(r, 1, t1),  \
				  SYSCALL_ARG(r, 2, t2), SYSCALL_ARG(r, 3, t3),  \
				  SYSCALL_ARG(r, 4, t4), SYSCALL_ARG(r, 5, t5)); \
	}                                                                        \
	SYSCALL_REGISTER(SYS_##name, call_##name)

/* Builds the table from every registration; a number registered twice is a bug (panic). */
void syscall_init(void);

/* The registered name of number nr ("read"), or NULL. */
const char *syscall_name(long nr);

#endif
