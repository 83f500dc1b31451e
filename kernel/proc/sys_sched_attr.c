/*
 * sched_setattr(2) and sched_getattr(2) (x86-64 numbers 314 and 315), with
 * Linux's struct sched_attr and its size protocol. The fair policies only
 * (SCHED_OTHER, SCHED_BATCH, SCHED_IDLE): policy, nice, and sched_runtime as
 * the task's requested slice (EEVDF's deadlines; clamped to 0.1-100 ms as
 * Linux 6.12 does, 0 for the base slice). Another class adds its policies
 * in sched_attr_apply() and sched_attr_policy_ok().
 */
#include <arch/smp.h>
#include <arch/uaccess.h>

#include "lib/errno.h"
#include "lib/string.h"
#include "proc/process.h"
#include "proc/syscall.h"
#include "sched/sched.h"
#include "sched/task.h"

/*
 * Linux's layout: 48 bytes in its first version (SCHED_ATTR_SIZE_VER0),
 * 56 with the utilisation clamps (VER1). A caller's size may be smaller
 * (down to VER0) or larger; larger is accepted only if every byte past
 * what the kernel knows is zero.
 */
struct sched_attr {
	u32 size;
	u32 sched_policy;
	u64 sched_flags;
	s32 sched_nice;
	u32 sched_priority;
	u64 sched_runtime;
	u64 sched_deadline;
	u64 sched_period;
	u32 sched_util_min;
	u32 sched_util_max;
};

#define SCHED_ATTR_SIZE_VER0 48
#define SCHED_ATTR_SIZE_VER1 56
_Static_assert(sizeof(struct sched_attr) == SCHED_ATTR_SIZE_VER1, "Linux's sched_attr");
_Static_assert(__builtin_offsetof(struct sched_attr, sched_runtime) == 24, "Linux's sched_attr");
_Static_assert(__builtin_offsetof(struct sched_attr, sched_util_min) == 48, "Linux's sched_attr");

#define SCHED_ATTR_PAGE 4096u /* Linux refuses sizes past PAGE_SIZE */

/* sched_flags Linux knows; only KEEP_PARAMS has an effect here, the rest are refused. */
#define SCHED_FLAG_RESET_ON_FORK  0x01
#define SCHED_FLAG_RECLAIM	  0x02
#define SCHED_FLAG_DL_OVERRUN	  0x04
#define SCHED_FLAG_KEEP_POLICY	  0x08
#define SCHED_FLAG_KEEP_PARAMS	  0x10
#define SCHED_FLAG_UTIL_CLAMP_MIN 0x20
#define SCHED_FLAG_UTIL_CLAMP_MAX 0x40
#define SCHED_FLAG_UTIL_CLAMP	  (SCHED_FLAG_UTIL_CLAMP_MIN | SCHED_FLAG_UTIL_CLAMP_MAX)
#define SCHED_FLAG_SUPPORTED	  (SCHED_FLAG_KEEP_POLICY | SCHED_FLAG_KEEP_PARAMS)

/* What getattr reports as the utilisation clamps: none (Linux's defaults, 0 and 1024). */
#define UCLAMP_MAX_VALUE 1024

static struct task *attr_task(int pid)
{
	struct task *t;

	if (pid == 0) {
		t = current_task();
		task_get(t);
		return t;
	}
	return thread_find(pid);
}

/* The policies sched_setattr accepts, with their priority rule (fair: 0 only). */
static bool sched_attr_policy_ok(u32 policy, u32 priority)
{
	switch (policy) {
	case SCHED_NORMAL:
	case SCHED_BATCH:
	case SCHED_IDLE:
		return priority == 0;
	default:
		return false;
	}
}

/*
 * Applies a checked attr to t: the one place that knows what each policy
 * takes from it. A fair policy: policy, then nice (which reweights), then
 * the slice; KEEP_PARAMS leaves nice and slice alone.
 */
static void sched_attr_apply(struct task *t, const struct sched_attr *attr, u32 policy)
{
	switch (policy) {
	case SCHED_NORMAL:
	case SCHED_BATCH:
	case SCHED_IDLE:
		WRITE_ONCE(t->policy, policy);
		if (attr->sched_flags & SCHED_FLAG_KEEP_PARAMS) {
			set_task_nice(t, READ_ONCE(t->nice)); /* the policy's weight */
			return;
		}
		set_task_nice(t, attr->sched_nice);
		sched_set_slice(t, attr->sched_runtime);
		return;
	}
}

/*
 * Linux's sched_copy_attr: size 0 means VER0; under VER0 or over a page is
 * -E2BIG with the kernel's size written back; bytes past the kernel's
 * struct must be zero (-E2BIG, size written back too).
 */
static long copy_attr_from_user(struct sched_attr *attr, struct sched_attr *uattr)
{
	u32 size, kernel_size = sizeof(*attr);
	u8 tail[64];

	memset(attr, 0, sizeof(*attr));
	if (copy_from_user(&size, &uattr->size, sizeof(size)))
		return -EFAULT;
	if (!size)
		size = SCHED_ATTR_SIZE_VER0;
	if (size < SCHED_ATTR_SIZE_VER0 || size > SCHED_ATTR_PAGE)
		goto too_big;
	if (copy_from_user(attr, uattr, size < kernel_size ? size : kernel_size))
		return -EFAULT;
	for (u32 off = kernel_size; off < size; off += sizeof(tail)) {
		u32 n = size - off < sizeof(tail) ? size - off : (u32)sizeof(tail);

		if (copy_from_user(tail, (u8 *)uattr + off, n))
			return -EFAULT;
		for (u32 i = 0; i < n; i++)
			if (tail[i])
				goto too_big;
	}
	attr->size = size;
	if ((attr->sched_flags & SCHED_FLAG_UTIL_CLAMP) && size < SCHED_ATTR_SIZE_VER1)
		return -EINVAL;
	attr->sched_nice = attr->sched_nice < NICE_MIN ? NICE_MIN :
			   attr->sched_nice > NICE_MAX ? NICE_MAX :
							 attr->sched_nice;
	return 0;

too_big:
	if (copy_to_user(&uattr->size, &kernel_size, sizeof(kernel_size)))
		return -EFAULT;
	return -E2BIG;
}

/* Linux's order: arguments, copying in, the thread, then the checks of the request. */
static long sys_sched_setattr(int pid, struct sched_attr *uattr, unsigned int flags)
{
	struct sched_attr attr;
	struct task *t;
	u32 policy;
	long err;

	if (!uattr || pid < 0 || flags)
		return -EINVAL;
	err = copy_attr_from_user(&attr, uattr);
	if (err)
		return err;
	if ((int)attr.sched_policy < 0)
		return -EINVAL;
	t = attr_task(pid);
	if (!t)
		return -ESRCH;
	policy = attr.sched_flags & SCHED_FLAG_KEEP_POLICY ? READ_ONCE(t->policy) : attr.sched_policy;
	if ((attr.sched_flags & ~(u64)SCHED_FLAG_SUPPORTED) ||
	    !sched_attr_policy_ok(policy, attr.sched_priority))
		err = -EINVAL;
	else
		sched_attr_apply(t, &attr, policy);
	task_put(t);
	return err;
}
SYSCALL_DEFINE3(sched_setattr, int, struct sched_attr *, unsigned int);

/* Linux's sched_getattr: usize VER0..a page; the kernel's fields, then zeros up to usize. */
static long sys_sched_getattr(int pid, struct sched_attr *uattr, unsigned int usize,
			      unsigned int flags)
{
	static const u8 zero[64];
	struct sched_attr attr = { 0 };
	struct task *t;

	if (!uattr || pid < 0 || usize > SCHED_ATTR_PAGE || usize < SCHED_ATTR_SIZE_VER0 || flags)
		return -EINVAL;
	t = attr_task(pid);
	if (!t)
		return -ESRCH;
	attr.sched_policy = READ_ONCE(t->policy);
	attr.sched_nice = READ_ONCE(t->nice);
	attr.sched_runtime = READ_ONCE(t->se.slice);
	attr.sched_util_min = 0;
	attr.sched_util_max = UCLAMP_MAX_VALUE;
	task_put(t);
	attr.size = usize < sizeof(attr) ? usize : (u32)sizeof(attr);
	if (copy_to_user(uattr, &attr, attr.size))
		return -EFAULT;
	/* A caller's larger struct gets the fields it knows and this kernel does not zeroed. */
	for (u32 off = attr.size; off < usize; off += sizeof(zero)) {
		u32 n = usize - off < sizeof(zero) ? usize - off : (u32)sizeof(zero);

		if (copy_to_user((u8 *)uattr + off, zero, n))
			return -EFAULT;
	}
	return 0;
}
SYSCALL_DEFINE4(sched_getattr, int, struct sched_attr *, unsigned int, unsigned int);
