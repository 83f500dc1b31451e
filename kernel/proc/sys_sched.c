/*
 * Scheduling system calls: sched_yield, CPU affinity, nice
 * (getpriority/setpriority) and the policy calls. A pid here names one
 * thread (a tid; 0 is the caller), as on Linux, so each call acts on
 * that thread alone.
 *
 * SCHED_OTHER, SCHED_BATCH and SCHED_IDLE are the fair class's policies
 * (static priority 0), SCHED_FIFO and SCHED_RR the real-time class's
 * (priorities 1..99, kernel/sched/rt/). SCHED_DEADLINE does not exist
 * (-EINVAL). Everyone is root, so everyone may ask for a real-time policy
 * and lower nice (Linux: -EPERM without CAP_SYS_NICE).
 */
#include <arch/smp.h>
#include <arch/uaccess.h>

#include "lib/cpumask.h"
#include "lib/errno.h"
#include "proc/process.h"
#include "proc/syscall.h"
#include "proc/sys_time.h"
#include "sched/rt/rt.h"
#include "sched/sched.h"
#include "sched/task.h"

/* The thread pid names, 0 being the caller, with a reference (task_put); NULL if none. */
static struct task *task_lookup(int pid)
{
	struct task *t;

	if (pid == 0) {
		t = current_task();
		task_get(t);
		return t;
	}
	return pid > 0 ? thread_find(pid) : NULL;
}

static long sys_sched_yield(void)
{
	task_yield();
	return 0;
}
SYSCALL_DEFINE0(sched_yield);

/* ---------------------------------------------------------------- affinity */

/*
 * The kernel's mask as user space sees it: struct cpumask, MAX_CPUS bits
 * (32 bytes), as Linux's cpumask_size() is its NR_CPUS bits when
 * CPUMASK_OFFSTACK is off.
 */
static size_t affinity_bytes(void)
{
	return sizeof(((struct cpumask *)0)->bits);
}

/*
 * Returns the bytes written (musl relies on it): the mask of allowed,
 * online CPUs, min(len, affinity_bytes()) of it. len must be a whole
 * number of longs and cover every CPU (Linux's checks, -EINVAL).
 */
static long sys_sched_getaffinity(int pid, unsigned int len, void *umask)
{
	struct cpumask mask = CPUMASK_EMPTY;
	size_t n = affinity_bytes();
	unsigned long flags;
	struct task *t;

	if ((u64)len * 8 < sched_nr_cpus() || len % sizeof(u64))
		return -EINVAL;
	t = task_lookup(pid);
	if (!t)
		return -ESRCH;
	flags = spin_lock_irqsave(&t->pi_lock); /* set_cpus_allowed writes it under pi_lock */
	for (u32 cpu = 0; cpu < sched_nr_cpus(); cpu++)
		if (cpumask_test_cpu(cpu, &t->cpus_allowed) && arch_cpu_online(cpu))
			cpumask_set_cpu(cpu, &mask);
	spin_unlock_irqrestore(&t->pi_lock, flags);
	task_put(t);
	if (n > len)
		n = len;
	if (copy_to_user(umask, mask.bits, n))
		return -EFAULT;
	return (long)n;
}
SYSCALL_DEFINE3(sched_getaffinity, int, unsigned int, void *);

/*
 * A shorter mask than the kernel's means the rest is 0, a longer one is
 * cut to the kernel's size (Linux's get_user_cpu_mask); bits of CPUs that
 * do not exist are dropped. No online CPU left: -EINVAL.
 */
static long sys_sched_setaffinity(int pid, unsigned int len, const void *umask)
{
	struct cpumask mask = CPUMASK_EMPTY, kept = CPUMASK_EMPTY;
	size_t n = len < sizeof(mask.bits) ? len : sizeof(mask.bits);
	struct task *t;
	long err;

	if (copy_from_user(mask.bits, umask, n))
		return -EFAULT;
	for (u32 cpu = 0; cpu < sched_nr_cpus(); cpu++)
		if (cpumask_test_cpu(cpu, &mask))
			cpumask_set_cpu(cpu, &kept);
	t = task_lookup(pid);
	if (!t)
		return -ESRCH;
	err = set_cpus_allowed(t, &kept);
	task_put(t);
	return err;
}
SYSCALL_DEFINE3(sched_setaffinity, int, unsigned int, const void *);

/* ---------------------------------------------------------------- nice */

#define PRIO_PROCESS 0
#define PRIO_PGRP    1
#define PRIO_USER    2

/*
 * PRIO_PROCESS only. Process groups do not exist here, and PRIO_USER
 * would mean every process (all are root's): both are -EINVAL rather
 * than a half-right answer.
 */
static long prio_which_check(int which)
{
	if (which == PRIO_PROCESS)
		return 0;
	return -EINVAL;
}

/* The raw call returns 20 - nice (1..40), never negative; the C library turns it back. */
static long sys_getpriority(int which, int who)
{
	struct task *t;
	long ret = prio_which_check(which);

	if (ret)
		return ret;
	t = task_lookup(who);
	if (!t)
		return -ESRCH;
	ret = 20 - READ_ONCE(t->nice);
	task_put(t);
	return ret;
}
SYSCALL_DEFINE2(getpriority, int, int);

/* Out-of-range values are clamped to -20..19, as Linux does. */
static long sys_setpriority(int which, int who, int niceval)
{
	struct task *t;
	long err = prio_which_check(which);

	if (err)
		return err;
	niceval = niceval < NICE_MIN ? NICE_MIN : niceval > NICE_MAX ? NICE_MAX : niceval;
	t = task_lookup(who);
	if (!t)
		return -ESRCH;
	set_task_nice(t, niceval);
	task_put(t);
	return 0;
}
SYSCALL_DEFINE3(setpriority, int, int, int);

/* ---------------------------------------------------------------- policies */

struct k_sched_param {
	int sched_priority;
};

static bool policy_exists(int policy)
{
	return policy == SCHED_NORMAL || policy == SCHED_BATCH || policy == SCHED_IDLE ||
	       sched_policy_rt((u32)policy);
}

/* Linux's order of checks: arguments, then copying, then the thread, then the policy. */
static long setscheduler(int pid, int policy, const struct k_sched_param *uparam)
{
	struct k_sched_param param;
	struct task *t;
	long err = 0;

	if (!uparam || pid < 0)
		return -EINVAL;
	if (copy_from_user(&param, uparam, sizeof(param)))
		return -EFAULT;
	t = task_lookup(pid);
	if (!t)
		return -ESRCH;
	if (policy < 0)
		policy = (int)READ_ONCE(t->policy); /* sched_setparam: keep the policy */
	if (!policy_exists(policy) || param.sched_priority < 0)
		err = -EINVAL;
	else /* -EINVAL for a priority outside the policy's range */
		err = sched_setscheduler_task(t, policy, (u32)param.sched_priority);
	task_put(t);
	return err;
}

/* SCHED_RESET_ON_FORK (0x40000000) is not supported either: -EINVAL. */
static long sys_sched_setscheduler(int pid, int policy, const struct k_sched_param *param)
{
	if (policy < 0)
		return -EINVAL;
	return setscheduler(pid, policy, param);
}
SYSCALL_DEFINE3(sched_setscheduler, int, int, const struct k_sched_param *);

static long sys_sched_setparam(int pid, const struct k_sched_param *param)
{
	return setscheduler(pid, -1, param);
}
SYSCALL_DEFINE2(sched_setparam, int, const struct k_sched_param *);

static long sys_sched_getscheduler(int pid)
{
	struct task *t;
	long policy;

	if (pid < 0)
		return -EINVAL;
	t = task_lookup(pid);
	if (!t)
		return -ESRCH;
	policy = (long)READ_ONCE(t->policy);
	task_put(t);
	return policy;
}
SYSCALL_DEFINE1(sched_getscheduler, int);

static long sys_sched_getparam(int pid, struct k_sched_param *uparam)
{
	struct k_sched_param param = { 0 };
	struct task *t;

	if (!uparam || pid < 0)
		return -EINVAL;
	t = task_lookup(pid);
	if (!t)
		return -ESRCH;
	param.sched_priority = (int)READ_ONCE(t->rt_priority); /* 0 for the fair policies */
	task_put(t);
	return copy_to_user(uparam, &param, sizeof(param)) ? -EFAULT : 0;
}
SYSCALL_DEFINE2(sched_getparam, int, struct k_sched_param *);

/* The fair policies have the one static priority 0; FIFO and RR 1..99. */
static long sys_sched_get_priority_max(int policy)
{
	if (sched_policy_rt((u32)policy))
		return RT_PRIO_MAX;
	return policy_exists(policy) ? 0 : -EINVAL;
}
SYSCALL_DEFINE1(sched_get_priority_max, int);

static long sys_sched_get_priority_min(int policy)
{
	if (sched_policy_rt((u32)policy))
		return RT_PRIO_MIN;
	return policy_exists(policy) ? 0 : -EINVAL;
}
SYSCALL_DEFINE1(sched_get_priority_min, int);

/*
 * The task's time slice: sched_rr_timeslice_ms for SCHED_RR, 0 for
 * SCHED_FIFO (it has none). A fair task gets its share of the CFS period
 * on its CPU, sched_latency_ns times its weight over the CPU's queued
 * weight (itself counted), at least sched_min_granularity_ns, as Linux's
 * sched_slice (without the period's stretch past sched_nr_latency tasks).
 */
static long sys_sched_rr_get_interval(int pid, struct k_timespec *uts)
{
	struct k_timespec ts;
	u64 ns = 0, weight, queued;
	struct task *t;

	if (pid < 0)
		return -EINVAL;
	t = task_lookup(pid);
	if (!t)
		return -ESRCH;
	if (READ_ONCE(t->policy) == SCHED_RR) {
		ns = sched_rr_timeslice_ns();
	} else if (READ_ONCE(t->policy) != SCHED_FIFO) {
		weight = READ_ONCE(t->load.weight);
		queued = READ_ONCE(task_rq(t)->load.weight);
		if (!READ_ONCE(t->on_rq))
			queued += weight;
		ns = queued ? sysctl_sched_latency * weight / queued : 0;
		if (ns < sysctl_sched_min_granularity)
			ns = sysctl_sched_min_granularity;
	}
	task_put(t);
	ts.tv_sec = (s64)(ns / 1000000000ULL);
	ts.tv_nsec = (s64)(ns % 1000000000ULL);
	return copy_to_user(uts, &ts, sizeof(ts)) ? -EFAULT : 0;
}
SYSCALL_DEFINE2(sched_rr_get_interval, int, struct k_timespec *);
