/*
 * prctl (the options programs use: the thread's name, the parent-death
 * signal, timer slack, no_new_privs, dumpable), getrandom, and the
 * supplementary groups (getgroups, setgroups), with Linux's checks and
 * errors. Everyone is root here, so setgroups is always allowed.
 */
#include <arch/random.h>
#include <arch/time.h>
#include <arch/uaccess.h>

#include "lib/errno.h"
#include "lib/string.h"
#include "proc/current.h"
#include "proc/process.h"
#include "proc/sys_prctl.h"
#include "proc/syscall.h"

#define PR_SET_PDEATHSIG    1
#define PR_GET_PDEATHSIG    2
#define PR_GET_DUMPABLE	    3
#define PR_SET_DUMPABLE	    4
#define PR_SET_NAME	    15
#define PR_GET_NAME	    16
#define PR_SET_TIMERSLACK   29
#define PR_GET_TIMERSLACK   30
#define PR_SET_NO_NEW_PRIVS 38
#define PR_GET_NO_NEW_PRIVS 39

#define GRND_NONBLOCK 0x1
#define GRND_RANDOM   0x2
#define GRND_INSECURE 0x4

#define NGROUPS_MAX 65536 /* Linux's bound on setgroups' size */

/* PR_SET_NAME: up to 15 bytes of the user string, the rest cut, as Linux's strncpy_from_user. */
static long set_name(const char *uname)
{
	struct process *p = current_process();
	struct task *t = current_task();
	char name[TASK_COMM_LEN] = { 0 };

	for (size_t i = 0; i < TASK_COMM_LEN - 1; i++) {
		if (copy_from_user(&name[i], uname + i, 1))
			return -EFAULT;
		if (!name[i])
			break;
	}
	memcpy(t->comm, name, sizeof(name));
	if (p && p->leader == t)
		memcpy(p->comm, name, sizeof(name)); /* what /proc/<pid>/comm shows */
	return 0;
}

long sys_prctl(int option, unsigned long arg2, unsigned long arg3, unsigned long arg4,
	       unsigned long arg5)
{
	struct process *p = current_process();
	int sig;

	if (!p)
		return -EINVAL;
	switch (option) {
	case PR_SET_PDEATHSIG:
		if (arg2 > NSIG)
			return -EINVAL;
		WRITE_ONCE(p->pdeath_signal, (int)arg2);
		return 0;
	case PR_GET_PDEATHSIG:
		sig = READ_ONCE(p->pdeath_signal);
		return copy_to_user((int *)arg2, &sig, sizeof(sig)) ? -EFAULT : 0;
	case PR_GET_DUMPABLE:
		return 1;
	case PR_SET_DUMPABLE:
		return arg2 == 0 || arg2 == 1 ? 0 : -EINVAL;
	case PR_SET_NAME:
		return set_name((const char *)arg2);
	case PR_GET_NAME:
		return copy_to_user((char *)arg2, current_task()->comm, TASK_COMM_LEN) ? -EFAULT : 0;
	case PR_SET_TIMERSLACK:
		WRITE_ONCE(p->timer_slack_ns, arg2 ? (u64)arg2 : PROC_TIMER_SLACK_NS);
		return 0;
	case PR_GET_TIMERSLACK:
		return (long)READ_ONCE(p->timer_slack_ns);
	case PR_SET_NO_NEW_PRIVS:
		if (arg2 != 1 || arg3 || arg4 || arg5)
			return -EINVAL;
		WRITE_ONCE(p->no_new_privs, true);
		return 0;
	case PR_GET_NO_NEW_PRIVS:
		if (arg2 || arg3 || arg4 || arg5)
			return -EINVAL;
		return READ_ONCE(p->no_new_privs);
	default:
		return -EINVAL;
	}
}
SYSCALL_DEFINE5(prctl, int, unsigned long, unsigned long, unsigned long, unsigned long);

/* The fallback when the CPU gives no random bits: xorshift64*, seeded from the TSC. */
static u64 fallback_u64(void)
{
	static u64 state;
	u64 x = __atomic_load_n(&state, __ATOMIC_RELAXED);

	if (!x)
		x = arch_cycles() | 1;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	__atomic_store_n(&state, x, __ATOMIC_RELAXED);
	return (x ^ arch_cycles()) * 0x2545f4914f6cdd1dULL;
}

/*
 * getrandom: the pool is always ready here, so GRND_NONBLOCK and
 * GRND_RANDOM never block. Like Linux, a request over 256 bytes may stop
 * early for a pending signal (the bytes so far, or -EINTR), and count is
 * cut to MAX_RW_COUNT.
 */
long sys_getrandom(char *ubuf, size_t count, unsigned int flags)
{
	size_t done = 0;

	if (flags & ~(GRND_NONBLOCK | GRND_RANDOM | GRND_INSECURE))
		return -EINVAL;
	if ((flags & (GRND_INSECURE | GRND_RANDOM)) == (GRND_INSECURE | GRND_RANDOM))
		return -EINVAL;
	if (count > 0x7ffff000UL)
		count = 0x7ffff000UL;
	while (done < count) {
		u64 v;
		size_t n = MIN(sizeof(v), count - done);

		if (done && done % 256 == 0 && current_signal_pending())
			break;
		if (!arch_random_u64(&v))
			v = fallback_u64();
		if (copy_to_user(ubuf + done, &v, n))
			return done ? (long)done : -EFAULT;
		done += n;
	}
	if (!done && count && current_signal_pending())
		return -EINTR;
	return (long)done;
}
SYSCALL_DEFINE3(getrandom, char *, size_t, unsigned int);

long sys_getgroups(int size, u32 *ulist)
{
	struct process *p = current_process();
	u32 groups[PROC_NGROUPS];
	unsigned long flags;
	u32 n;

	if (size < 0)
		return -EINVAL;
	flags = spin_lock_irqsave(&p->lock);
	n = p->nr_groups;
	memcpy(groups, p->groups, n * sizeof(u32));
	spin_unlock_irqrestore(&p->lock, flags);
	if (size == 0)
		return n;
	if ((u32)size < n)
		return -EINVAL;
	return copy_to_user(ulist, groups, n * sizeof(u32)) ? -EFAULT : (long)n;
}
SYSCALL_DEFINE2(getgroups, int, u32 *);

/*
 * setgroups: Linux keeps the list sorted (groups_sort), so getgroups
 * gives it back in ascending order. More than PROC_NGROUPS groups (but
 * not more than NGROUPS_MAX) is -EINVAL here; Linux would take them.
 */
long sys_setgroups(int size, const u32 *ulist)
{
	struct process *p = current_process();
	u32 groups[PROC_NGROUPS];
	unsigned long flags;

	if (size < 0 || size > NGROUPS_MAX || size > PROC_NGROUPS)
		return -EINVAL;
	if (size && copy_from_user(groups, ulist, (size_t)size * sizeof(u32)))
		return -EFAULT;
	for (int i = 1; i < size; i++) {
		u32 g = groups[i];
		int j = i;

		for (; j > 0 && groups[j - 1] > g; j--)
			groups[j] = groups[j - 1];
		groups[j] = g;
	}
	flags = spin_lock_irqsave(&p->lock);
	p->nr_groups = (u32)size;
	memcpy(p->groups, groups, (size_t)size * sizeof(u32));
	spin_unlock_irqrestore(&p->lock, flags);
	return 0;
}
SYSCALL_DEFINE2(setgroups, int, const u32 *);
