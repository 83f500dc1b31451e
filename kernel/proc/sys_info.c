/*
 * System calls that tell a process about the system and itself: uname,
 * sysinfo, getrusage, getrlimit/prlimit64/setrlimit, getcpu, reboot, and
 * the user and group ids (everyone is root: 0). Layouts and the pure
 * conversions are in sys_info.h.
 */
#include "proc/sys_info.h"

#include <arch/addr_space.h>
#include <arch/smp.h>
#include <arch/time.h>
#include <arch/uaccess.h>

#include "fs/fdtable.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "machine_boot.h"
#include "main.h"
#include "mm/page_alloc.h"
#include "mm/vm.h"
#include "panic.h"
#include "printk.h"
#include "proc/process.h"
#include "proc/syscall.h"
#include "sched/task.h"

#define PAGE_BYTES 4096ULL

void process_cpu_totals(struct process *p, struct cpu_totals *out)
{
	unsigned long flags = spin_lock_irqsave(&proc_lock);
	struct list_head *pos;

	*out = p->dead_threads;
	list_for_each (pos, &p->threads) {
		struct task *t = list_entry(pos, struct task, thread_node);

		out->runtime_ns += task_sched_runtime(t);
		out->nvcsw += READ_ONCE(t->stats.nr_voluntary_switches);
		out->nivcsw += READ_ONCE(t->stats.nr_involuntary_switches);
	}
	spin_unlock_irqrestore(&proc_lock, flags);
}

/* ---------------------------------------------------------------- uname */

#define UTS_LEN 65

struct k_utsname {
	char sysname[UTS_LEN], nodename[UTS_LEN], release[UTS_LEN];
	char version[UTS_LEN], machine[UTS_LEN], domainname[UTS_LEN];
};

static long sys_uname(struct k_utsname *name)
{
	struct k_utsname u;

	memset(&u, 0, sizeof(u));
	strlcpy(u.sysname, "Fulcrum", UTS_LEN);
	strlcpy(u.nodename, "fulcrum", UTS_LEN);
	strlcpy(u.release, FULCRUM_VERSION, UTS_LEN);
	strlcpy(u.version, "#1 SMP", UTS_LEN);
	strlcpy(u.machine, "x86_64", UTS_LEN);
	strlcpy(u.domainname, "(none)", UTS_LEN); /* Linux's word for no NIS domain */
	return copy_to_user(name, &u, sizeof(u));
}
SYSCALL_DEFINE1(uname, struct k_utsname *);

/* ---------------------------------------------------------------- sysinfo */

/*
 * Memory in bytes (mem_unit 1) from the page allocator; procs counts
 * threads, as Linux's does (its nr_threads); no load averages are kept,
 * so loads are 0; no swap, no high memory.
 */
static long sys_sysinfo(struct k_sysinfo *info)
{
	struct k_sysinfo si;
	u64 up = arch_clock_ns();
	u32 threads = thread_count();

	memset(&si, 0, sizeof(si));
	si.uptime = (s64)(up / NSEC_PER_SEC + (up % NSEC_PER_SEC != 0));
	si.totalram = page_alloc_total_pages() * PAGE_BYTES;
	si.freeram = page_alloc_free_pages() * PAGE_BYTES;
	si.procs = (u16)(threads > 0xffff ? 0xffff : threads);
	si.mem_unit = 1;
	return copy_to_user(info, &si, sizeof(si));
}
SYSCALL_DEFINE1(sysinfo, struct k_sysinfo *);

/* ---------------------------------------------------------------- getrusage */

static u64 current_max_rss_pages(struct process *p)
{
	u64 pages = READ_ONCE(p->max_rss_pages);
	struct vm_usage u;

	/* The caller's own process is live, so its address space is there. */
	if (p->vm) {
		vm_usage(p->vm, &u);
		pages = MAX(pages, u.peak_resident_pages);
	}
	return pages;
}

/*
 * RUSAGE_SELF: every thread of the caller's process, exited ones
 * included; RUSAGE_THREAD: the caller alone; RUSAGE_CHILDREN: the reaped
 * children and what they had reaped (CPU time, switches, the largest
 * resident set). ru_maxrss is the process's for SELF and THREAD, as Linux.
 */
static long sys_getrusage(int who, struct k_rusage *ru)
{
	struct process *p = current_process();
	struct cpu_totals totals = { 0 };
	struct k_rusage out;
	unsigned long flags;
	u64 maxrss;

	switch (who) {
	case RUSAGE_SELF:
		process_cpu_totals(p, &totals);
		maxrss = current_max_rss_pages(p);
		break;
	case RUSAGE_THREAD: {
		struct task *t = current_task();

		totals.runtime_ns = task_sched_runtime(t);
		totals.nvcsw = t->stats.nr_voluntary_switches;
		totals.nivcsw = t->stats.nr_involuntary_switches;
		maxrss = current_max_rss_pages(p);
		break;
	}
	case RUSAGE_CHILDREN:
		flags = spin_lock_irqsave(&proc_lock);
		totals = p->reaped;
		maxrss = p->children_max_rss_pages;
		spin_unlock_irqrestore(&proc_lock, flags);
		break;
	default:
		return -EINVAL;
	}
	rusage_fill(&out, &totals, maxrss);
	return copy_to_user(ru, &out, sizeof(out));
}
SYSCALL_DEFINE2(getrusage, int, struct k_rusage *);

/* ---------------------------------------------------------------- resource limits */

#define RLIMIT_STACK  3
#define RLIMIT_NPROC  6
#define RLIMIT_NOFILE 7
#define RLIMIT_AS     9
#define RLIM_NLIMITS  16
#define RLIM_INFINITY (~0ULL)

struct k_rlimit {
	u64 rlim_cur, rlim_max;
};

/*
 * RLIMIT_NPROC (p's, proc_internal.h), RLIMIT_NOFILE (p's descriptor
 * table, at most FD_MAX), RLIMIT_AS and RLIMIT_STACK (p's address space,
 * struct vm_rlimits) are enforced; every other resource is unlimited as
 * far as a process can tell, and setting one changes nothing.
 */
static long rlimit_apply(unsigned int resource, struct process *p, const struct k_rlimit *new,
			 struct k_rlimit *cur)
{
	struct vm_rlimits vr;
	unsigned long flags;

	switch (resource) {
	case RLIMIT_NPROC:
		flags = spin_lock_irqsave(&proc_lock);
		*cur = (struct k_rlimit){ p->nproc_cur, p->nproc_max };
		if (new) {
			p->nproc_cur = new->rlim_cur;
			p->nproc_max = new->rlim_max;
		}
		spin_unlock_irqrestore(&proc_lock, flags);
		return 0;
	case RLIMIT_NOFILE:
		if (!p->files)
			return -ESRCH;
		flags = spin_lock_irqsave(&p->files->lock);
		*cur = (struct k_rlimit){ p->files->nofile, p->files->nofile_max };
		/* Linux's fs.nr_open: no higher, even for root. */
		if (new &&new->rlim_max > FD_MAX) {
			spin_unlock_irqrestore(&p->files->lock, flags);
			return -EPERM;
		}
		if (new) {
			__atomic_store_n(&p->files->nofile, (unsigned int)new->rlim_cur,
					 __ATOMIC_RELAXED);
			p->files->nofile_max = (unsigned int)new->rlim_max;
		}
		spin_unlock_irqrestore(&p->files->lock, flags);
		return 0;
	case RLIMIT_AS:
	case RLIMIT_STACK:
		if (!p->vm)
			return -ESRCH;
		/* Racy against another setter of the same process only, as Linux's task_lock-free read. */
		vm_get_rlimits(p->vm, &vr);
		if (resource == RLIMIT_AS) {
			*cur = (struct k_rlimit){ vr.as_cur, vr.as_max };
			if (new) {
				vr.as_cur = new->rlim_cur;
				vr.as_max = new->rlim_max;
			}
		} else {
			*cur = (struct k_rlimit){ vr.stack_cur, vr.stack_max };
			if (new) {
				vr.stack_cur = new->rlim_cur;
				vr.stack_max = new->rlim_max;
			}
		}
		if (new)
			vm_set_rlimits(p->vm, &vr);
		return 0;
	default:
		*cur = (struct k_rlimit){ RLIM_INFINITY, RLIM_INFINITY };
		return 0;
	}
}

/*
 * Every Fulcrum process is root, so, as Linux lets root, a limit may be
 * set to anything with cur <= max, raised too (RLIMIT_NOFILE not past
 * FD_MAX: -EPERM); what is enforced beyond the kernel's own ceilings
 * (FD_MAX, user_mem_limit=, USER_STACK_SIZE) is the ceiling. old gets the
 * value from before the change, as prlimit64 returns it.
 */
static long rlimit_access(unsigned int resource, struct process *p, const struct k_rlimit *new,
			  struct k_rlimit *old)
{
	struct k_rlimit cur;
	long err;

	if (resource >= RLIM_NLIMITS)
		return -EINVAL;
	if (new &&new->rlim_cur > new->rlim_max)
		return -EINVAL;
	err = rlimit_apply(resource, p, new, &cur);
	if (!err && old)
		*old = cur;
	return err;
}

static long sys_getrlimit(unsigned int resource, struct k_rlimit *rlim)
{
	struct k_rlimit old;
	long err = rlimit_access(resource, current_process(), NULL, &old);

	return err ? err : copy_to_user(rlim, &old, sizeof(old));
}
SYSCALL_DEFINE2(getrlimit, unsigned int, struct k_rlimit *);

static long sys_setrlimit(unsigned int resource, const struct k_rlimit *rlim)
{
	struct k_rlimit new;

	if (copy_from_user(&new, rlim, sizeof(new)))
		return -EFAULT;
	return rlimit_access(resource, current_process(), &new, NULL);
}
SYSCALL_DEFINE2(setrlimit, unsigned int, const struct k_rlimit *);

/* Linux's order: the new limit is read, then the thread looked up, then the resource checked. */
static long sys_prlimit64(int pid, unsigned int resource, const struct k_rlimit *new_rlim,
			  struct k_rlimit *old_rlim)
{
	struct process *p = current_process(), *target = NULL;
	struct k_rlimit new, old;
	long err;

	if (new_rlim && copy_from_user(&new, new_rlim, sizeof(new)))
		return -EFAULT;
	if (pid < 0)
		return -ESRCH;
	if (pid) {
		target = thread_find_process(pid);
		if (!target)
			return -ESRCH;
		p = target;
	}
	err = rlimit_access(resource, p, new_rlim ? &new : NULL, old_rlim ? &old : NULL);
	if (target)
		process_put(target);
	if (!err && old_rlim)
		err = copy_to_user(old_rlim, &old, sizeof(old));
	return err;
}
SYSCALL_DEFINE4(prlimit64, int, unsigned int, const struct k_rlimit *, struct k_rlimit *);

/* ---------------------------------------------------------------- getcpu */

/* The CPU the caller runs on (it may move right after) and that CPU's NUMA node. */
static long sys_getcpu(unsigned int *ucpu, unsigned int *unode, void *unused_cache)
{
	const struct machine *m = machine_current();
	unsigned int cpu = arch_cpu_id();
	unsigned int node = m && cpu < m->nr_cpus ? m->cpu[cpu].node : 0;

	if (ucpu && copy_to_user(ucpu, &cpu, sizeof(cpu)))
		return -EFAULT;
	if (unode && copy_to_user(unode, &node, sizeof(node)))
		return -EFAULT;
	return 0;
}
SYSCALL_DEFINE3(getcpu, unsigned int *, unsigned int *, void *);

/* ---------------------------------------------------------------- reboot */

/* Linux's <linux/reboot.h>: the magic numbers and commands. */
#define LINUX_REBOOT_MAGIC1  0xfee1deadU
#define LINUX_REBOOT_MAGIC2  672274793U
#define LINUX_REBOOT_MAGIC2A 85072278U
#define LINUX_REBOOT_MAGIC2B 369367448U
#define LINUX_REBOOT_MAGIC2C 537993216U

#define LINUX_REBOOT_CMD_RESTART   0x01234567U
#define LINUX_REBOOT_CMD_HALT	   0xcdef0123U
#define LINUX_REBOOT_CMD_CAD_ON	   0x89abcdefU
#define LINUX_REBOOT_CMD_CAD_OFF   0x00000000U
#define LINUX_REBOOT_CMD_POWER_OFF 0x4321fedcU
#define LINUX_REBOOT_CMD_RESTART2  0xa1b2c3d4U

/*
 * Power off, halt and restart all end the run (machine_finish: QEMU
 * exits with the pass status); a virtual machine that would only boot
 * the same image again has nothing to restart for. Ctrl-Alt-Del
 * on/off is accepted and changes nothing: there is no such key here.
 * Everyone is root, so there is no -EPERM.
 */
static long sys_reboot(unsigned int magic1, unsigned int magic2, unsigned int cmd, void *arg)
{
	struct task *t = current_task();
	const char *what;

	if (magic1 != LINUX_REBOOT_MAGIC1 ||
	    (magic2 != LINUX_REBOOT_MAGIC2 && magic2 != LINUX_REBOOT_MAGIC2A &&
	     magic2 != LINUX_REBOOT_MAGIC2B && magic2 != LINUX_REBOOT_MAGIC2C))
		return -EINVAL;
	switch (cmd) {
	case LINUX_REBOOT_CMD_CAD_ON:
	case LINUX_REBOOT_CMD_CAD_OFF:
		return 0;
	case LINUX_REBOOT_CMD_POWER_OFF:
		what = "power down";
		break;
	case LINUX_REBOOT_CMD_HALT:
		what = "halt";
		break;
	case LINUX_REBOOT_CMD_RESTART:
	case LINUX_REBOOT_CMD_RESTART2:
		what = "restart (ends the run)";
		break;
	default:
		return -EINVAL;
	}
	pr_info("reboot: %s, asked by pid %d (%s)\n", what, t->pid, t->comm);
	machine_finish(EXIT_PASS);
}
SYSCALL_DEFINE4(reboot, unsigned int, unsigned int, unsigned int, void *);

/* ---------------------------------------------------------------- ids */

/* One user, root: every id is 0. */
static long sys_getuid(void)
{
	return 0;
}
SYSCALL_DEFINE0(getuid);

static long sys_geteuid(void)
{
	return 0;
}
SYSCALL_DEFINE0(geteuid);

static long sys_getgid(void)
{
	return 0;
}
SYSCALL_DEFINE0(getgid);

static long sys_getegid(void)
{
	return 0;
}
SYSCALL_DEFINE0(getegid);
