/*
 * The end of threads and processes, and wait4.
 *
 * A thread leaves its process's thread list and, as CLONE_CHILD_CLEARTID
 * asks, zeroes its tid word and wakes a futex waiter there (pthread_join).
 * The last thread out turns the process into a zombie: its address space
 * and descriptors are released at once, its children go to init (their
 * exit signal becomes SIGCHLD), and its parent gets the exit signal and a
 * wake-up. wait4 then reaps it. A process whose parent ignores SIGCHLD
 * (SIG_IGN or SA_NOCLDWAIT) is reaped at once, as POSIX says. When init
 * itself ends, so does the run.
 */
#include <arch/addr_space.h>
#include <arch/cpu.h>
#include <arch/fpu.h>
#include <arch/uaccess.h>

#include "fs/cwd.h"
#include "fs/fdtable.h"
#include "lib/errno.h"
#include "mm/vm.h"
#include "panic.h"
#include "printk.h"
#include "proc/futex.h"
#include "proc/itimer.h"
#include "time/posix_timers.h"
#include "proc/proc_internal.h"
#include "proc/signal.h"
#include "proc/syscall.h"
#include "proc/sys_info.h"
#include "sched/sched.h"

#define WNOHANG	    1
#define WUNTRACED   2
#define WCONTINUED  8
#define __WNOTHREAD 0x20000000
#define __WALL	    0x40000000
#define __WCLONE    0x80000000

#define SIG_IGN	     1
#define SA_NOCLDWAIT 2

struct process *init_process;

/* The exit signal to the parent (SIGCHLD, or what clone asked for). */
static void notify_parent(struct process *parent, struct process *p)
{
	signal_child_exited(parent, p);
}

/* Does the parent want no zombies (SIGCHLD ignored, or SA_NOCLDWAIT)? p->lock not needed: a read. */
static bool parent_reaps_nothing(const struct process *parent)
{
	const struct k_sigaction *sa = &parent->action[SIGCHLD - 1];

	return sa->handler == SIG_IGN || (sa->flags & SA_NOCLDWAIT);
}

/*
 * The last thread has gone: p becomes a zombie (proc_lock held). Returns
 * true if p is to be freed now. Orphans that asked for a parent-death
 * signal are chained on *pdeath, counted, for the caller to signal.
 */
static bool process_die_locked(struct process *p, int status, struct process **pdeath)
{
	struct process *parent = p->parent;

	if (!p->group_exiting)
		p->exit_status = status;
	p->zombie = true;
	/* Orphans go to init; a zombie among them must be reaped by init now. */
	while (!list_empty(&p->children)) {
		struct process *c = list_entry(p->children.next, struct process, sibling);

		list_del(&c->sibling);
		c->parent = init_process;
		/* As Linux: init gets SIGCHLD from an adopted child, never what clone asked for. */
		c->exit_signal = SIGCHLD;
		/* PR_SET_PDEATHSIG: the orphan asked to hear of it; sent once proc_lock is dropped. */
		if (c->pdeath_signal && !c->zombie) {
			process_get(c);
			c->pdeath_next = *pdeath;
			*pdeath = c;
		}
		if (init_process && init_process != p) {
			list_add_tail(&c->sibling, &init_process->children);
			if (c->zombie)
				wake_up_all(&init_process->child_wq);
		} else {
			list_init(&c->sibling); /* init itself is going: the run ends */
		}
	}
	if (!parent || parent_reaps_nothing(parent)) { /* nobody will wait for it */
		process_unlink_locked(p);
		return true;
	}
	return false;
}

/* Releases what a dead process holds (no locks held; may sleep). */
static void process_release(struct process *p, struct task *t)
{
	struct vm *vm = p->vm;
	struct files *files = p->files;
	struct fs_struct *fs = p->fs;
	unsigned long irq = arch_irq_save();

	/* Off this address space first: the scheduler must not load it again. */
	t->mm = NULL;
	arch_mm_activate(NULL);
	arch_irq_restore(irq);
	if (vm) {
		struct vm_usage u;

		vm_usage(vm, &u);
		p->max_rss_pages = u.peak_resident_pages;
	}
	irq = spin_lock_irqsave(&proc_lock); /* the OOM killer's scan reads p->vm under it */
	p->vm = NULL;
	spin_unlock_irqrestore(&proc_lock, irq);
	p->files = NULL;
	p->fs = NULL;
	if (files)
		files_put(files);
	fs_struct_put(fs);
	if (vm)
		vm_put(vm);
	WRITE_ONCE(p->mem_released, true); /* the OOM killer may pick another victim now */
}

void thread_exit(int status)
{
	struct task *t = current_task();
	struct process *p = t->proc;
	bool last, free_now = false;
	struct process *parent, *pdeath = NULL;
	unsigned long irq;
	int *ctid = t->clear_child_tid;

	if (ctid && p->vm) {
		int zero = 0;

		if (!copy_to_user(ctid, &zero, sizeof(zero)))
			futex_wake_address(p->vm, (u32 *)ctid, 1);
	}
	vfork_release(t); /* per thread, as Linux's mm_release: a CLONE_THREAD vfork child too */
	irq = spin_lock_irqsave(&proc_lock);
	thread_unlink_locked(p, t);
	p->dead_threads.runtime_ns += task_sched_runtime(t);
	p->dead_threads.nvcsw += t->stats.nr_voluntary_switches;
	p->dead_threads.nivcsw += t->stats.nr_involuntary_switches;
	last = p->nr_threads == 0;
	spin_unlock_irqrestore(&proc_lock, irq);

	if (last) {
		itimer_exit(p); /* no thread is left to re-arm it */
		posix_timers_exit(p);
		process_release(p, t);
		/*
		 * Our own references: once p is a zombie its parent may reap and
		 * free it, and the parent may itself exit, while we still tell it.
		 */
		process_get(p);
		irq = spin_lock_irqsave(&proc_lock);
		free_now = process_die_locked(p, status, &pdeath);
		parent = p->parent;
		if (parent)
			process_get(parent);
		spin_unlock_irqrestore(&proc_lock, irq);
		while (pdeath) {
			struct process *c = pdeath;

			pdeath = c->pdeath_next;
			signal_send_process(c, c->pdeath_signal);
			process_put(c);
		}
		if (p == init_process) {
			pr_err("init: pid 1 exited with wait status %#x: the run ends\n",
			       p->exit_status);
			machine_finish(EXIT_FAIL);
		}
		if (parent) {
			if (!free_now)
				notify_parent(parent, p); /* the signal first, then wait4's wake-up */
			wake_up_all(&parent->child_wq);
			process_put(parent);
		}
		if (free_now)
			process_put(p);
		process_put(p);
	}
	t->proc = NULL; /* the task lives on only until its last switch */
	task_exit(status);
}

void process_group_exit(int status)
{
	struct task *self = current_task();
	struct process *p = self->proc;
	unsigned long irq = spin_lock_irqsave(&proc_lock);
	struct list_head *pos;

	if (p->exec_task && p->exec_task != self) {
		/* Another thread is exec'ing: this one just goes. */
		spin_unlock_irqrestore(&proc_lock, irq);
		thread_exit(status);
	}
	if (!p->group_exiting) {
		p->group_exiting = true;
		p->exit_status = status;
		list_for_each (pos, &p->threads) {
			struct task *t = list_entry(pos, struct task, thread_node);

			if (t != self)
				signal_kill_thread(t);
		}
	}
	spin_unlock_irqrestore(&proc_lock, irq);
	thread_exit(status);
}

static long sys_exit(int code)
{
	thread_exit((code & 0xff) << 8);
}
SYSCALL_DEFINE1(exit, int);

static long sys_exit_group(int code)
{
	process_group_exit((code & 0xff) << 8);
}
SYSCALL_DEFINE1(exit_group, int);

/* ---------------------------------------------------------------- wait4 */

static bool wait_matches(const struct process *c, int pid)
{
	return pid <= 0 || c->pid == pid; /* no process groups: 0 and < -1 mean any child */
}

/* A zombie child matching pid, unlinked from the tree (proc_lock held), or NULL; *any says if one matched at all. */
static struct process *take_zombie_locked(struct process *self, int pid, bool *any)
{
	struct list_head *pos;

	*any = false;
	list_for_each (pos, &self->children) {
		struct process *c = list_entry(pos, struct process, sibling);

		if (!wait_matches(c, pid))
			continue;
		*any = true;
		if (c->zombie) {
			process_unlink_locked(c);
			return c;
		}
	}
	return NULL;
}

/* wait4's rusage: the child's threads and what it had reaped, as Linux's RUSAGE_BOTH. */
static int put_rusage(struct k_rusage *ur, const struct process *c)
{
	struct cpu_totals t = {
		.runtime_ns = c->dead_threads.runtime_ns + c->reaped.runtime_ns,
		.nvcsw = c->dead_threads.nvcsw + c->reaped.nvcsw,
		.nivcsw = c->dead_threads.nivcsw + c->reaped.nivcsw,
	};
	struct k_rusage ru;

	rusage_fill(&ru, &t, MAX(c->max_rss_pages, c->children_max_rss_pages));
	return copy_to_user(ur, &ru, sizeof(ru));
}

static long sys_wait4(int pid, int *ustatus, int options, struct k_rusage *urusage)
{
	struct process *self = current_process(), *c;
	bool any;
	long ret;

	if (options & ~(WNOHANG | WUNTRACED | WCONTINUED | __WNOTHREAD | __WALL | __WCLONE))
		return -EINVAL;
	for (;;) {
		struct waiter w = { .task = NULL };
		unsigned long irq;
		bool stop;

		wait_prepare_state(&self->child_wq, &w,
				   TASK_INTERRUPTIBLE); /* before looking: an exit in between still wakes us */
		irq = spin_lock_irqsave(&proc_lock);
		c = take_zombie_locked(self, pid, &any);
		spin_unlock_irqrestore(&proc_lock, irq);
		stop = c || !any || (options & WNOHANG) || signal_pending(current_task());
		if (!stop)
			schedule();
		wait_finish(&self->child_wq, &w);
		if (stop)
			break;
	}
	if (!c)
		return !any ? -ECHILD : (options & WNOHANG) ? 0 : -ERESTARTSYS;
	self->reaped.runtime_ns += c->dead_threads.runtime_ns + c->reaped.runtime_ns;
	self->reaped.nvcsw += c->dead_threads.nvcsw + c->reaped.nvcsw;
	self->reaped.nivcsw += c->dead_threads.nivcsw + c->reaped.nivcsw;
	if (c->max_rss_pages > self->children_max_rss_pages)
		self->children_max_rss_pages = c->max_rss_pages;
	ret = c->pid;
	if (ustatus && copy_to_user(ustatus, &c->exit_status, sizeof(int)))
		ret = -EFAULT;
	else if (urusage && put_rusage(urusage, c))
		ret = -EFAULT;
	process_put(c);
	return ret;
}
SYSCALL_DEFINE4(wait4, int, int *, int, struct k_rusage *);
