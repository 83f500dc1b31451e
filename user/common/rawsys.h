/*
 * Raw system calls for the user test programs: the kernel's own return
 * value (a result or a negative errno), with no libc wrapper in between
 * to translate errors, cache values (getpid) or take another path (vDSO).
 * They touch no thread-local state, so they are safe in raw clone children.
 */
#ifndef USER_COMMON_RAWSYS_H
#define USER_COMMON_RAWSYS_H

#include <sys/syscall.h>

static inline long raw_syscall6(long nr, long a, long b, long c, long d, long e, long f)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

/* Arguments are cast to long, so pointers and ints can be passed as they are. */
#define RL(x)			  ((long)(x))
#define raw0(n)			  raw_syscall6(n, 0, 0, 0, 0, 0, 0)
#define raw1(n, a)		  raw_syscall6(n, RL(a), 0, 0, 0, 0, 0)
#define raw2(n, a, b)		  raw_syscall6(n, RL(a), RL(b), 0, 0, 0, 0)
#define raw3(n, a, b, c)	  raw_syscall6(n, RL(a), RL(b), RL(c), 0, 0, 0)
#define raw4(n, a, b, c, d)	  raw_syscall6(n, RL(a), RL(b), RL(c), RL(d), 0, 0)
#define raw5(n, a, b, c, d, e)	  raw_syscall6(n, RL(a), RL(b), RL(c), RL(d), RL(e), 0)
#define raw6(n, a, b, c, d, e, f) raw_syscall6(n, RL(a), RL(b), RL(c), RL(d), RL(e), RL(f))

/* A struct timespec argument written in place (needs <time.h>). */
#define TS(s, ns) (&(struct timespec){ (s), (ns) })

/* Addresses no system call may accept: below the first mapping, kernel half, non-canonical. */
#define BAD_PTR_LOW	 ((void *)8)
#define BAD_PTR_KERNEL	 ((void *)0xffffffff80000000ul)
#define BAD_PTR_NONCANON ((void *)0x8000000000000000ul)

#endif
