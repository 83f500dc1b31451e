/*
 * fork, vfork and clone: a new process (a copy of the caller's address
 * space and descriptors) or a new thread of the caller's process. Both
 * are a new task placed by the scheduler's fork path, which starts in
 * user_thread_start() and enters ring 3 with the parent's registers
 * (rax 0, and the stack and TLS clone asked for).
 *
 * clone flags: CLONE_VM, CLONE_FS (the working directory: shared, else
 * copied; a thread shares its process's whatever it asks), CLONE_FILES, CLONE_SIGHAND, CLONE_THREAD, CLONE_SYSVSEM
 * (nothing to share), CLONE_SETTLS, CLONE_PARENT_SETTID,
 * CLONE_CHILD_SETTID, CLONE_CHILD_CLEARTID, CLONE_VFORK, CLONE_DETACHED
 * (ignored, as Linux does); the low byte is the signal the parent gets at
 * exit. Anything else (namespaces, ptrace, pidfd...) is -EINVAL.
 *
 * CLONE_VFORK: the caller sleeps until the new task execs or exits (that
 * task, not its whole process: a CLONE_THREAD child releases it when the
 * thread ends), or until a fatal signal comes for the caller, as Linux's
 * killable wait_for_vfork_done. The wait lives on the caller's stack (see
 * struct vfork_wait), never inside the child's process.
 */
#include <arch/fpu.h>
#include <arch/uaccess.h>
#include <arch/user.h>

#include "fs/cwd.h"
#include "fs/fdtable.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "mm/vm.h"
#include "proc/proc_internal.h"
#include "proc/signal.h"
#include "proc/syscall.h"
#include "sched/rt/rt.h"
#include "sched/sched.h"
#include "trace/trace.h"

#define CSIGNAL		     0x000000ff
#define CLONE_VM	     0x00000100
#define CLONE_FS	     0x00000200
#define CLONE_FILES	     0x00000400
#define CLONE_SIGHAND	     0x00000800
#define CLONE_VFORK	     0x00004000
#define CLONE_PARENT	     0x00008000
#define CLONE_THREAD	     0x00010000
#define CLONE_SYSVSEM	     0x00040000
#define CLONE_SETTLS	     0x00080000
#define CLONE_PARENT_SETTID  0x00100000
#define CLONE_CHILD_CLEARTID 0x00200000
#define CLONE_DETACHED	     0x00400000
#define CLONE_CHILD_SETTID   0x01000000

#define CLONE_SUPPORTED                                                              \
	(CSIGNAL | CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_VFORK | \
	 CLONE_THREAD | CLONE_SYSVSEM | CLONE_SETTLS | CLONE_PARENT_SETTID |         \
	 CLONE_CHILD_CLEARTID | CLONE_DETACHED | CLONE_CHILD_SETTID)

void user_thread_start(void *arg)
{
	struct user_start *start = arg;
	struct user_regs regs = start->regs;
	u64 fs_base = start->fs_base;

	kfree(start);
	arch_set_fs_base(fs_base);
	arch_return_to_user(&regs);
}

static int check_flags(u64 flags)
{
	if (flags & ~(u64)CLONE_SUPPORTED)
		return -EINVAL;
	if ((flags & CLONE_THREAD) && !(flags & CLONE_SIGHAND))
		return -EINVAL;
	if ((flags & CLONE_SIGHAND) && !(flags & CLONE_VM))
		return -EINVAL;
	if ((flags & CLONE_THREAD) && (flags & CSIGNAL))
		return -EINVAL; /* a thread sends no exit signal */
	return 0;
}

/* The child's task (not yet runnable) with its start block; NULL when out of memory. */
static struct task *child_task(struct process *p, struct user_regs *regs, u64 flags, u64 newsp,
			       u64 tls)
{
	struct task *parent = current_task(), *t;
	struct user_start *start = kmalloc(sizeof(*start));

	if (!start)
		return NULL;
	start->regs = *regs;
	user_regs_set_return(&start->regs, 0);
	if (newsp)
		user_regs_set_sp(&start->regs, newsp);
	start->fs_base = flags & CLONE_SETTLS ? tls : arch_get_fs_base();
	t = task_create(user_thread_start, start, p->comm, parent->nice, &parent->cpus_allowed, 0);
	if (!t) {
		kfree(start);
		return NULL;
	}
	if (arch_fpu_alloc(&t->ctx)) {
		task_put(t); /* never ran: its own reference is the last */
		kfree(start);
		return NULL;
	}
	arch_fpu_fork(&t->ctx);
	signal_fork_thread(t, (flags & CLONE_VM) && !(flags & CLONE_VFORK));
	sched_fork_policy(t, parent); /* policy, priority and the real-time class */
	t->sig_blocked = parent->sig_blocked;
	t->mm = parent->mm;
	if (flags & CLONE_CHILD_CLEARTID)
		t->clear_child_tid = NULL; /* set by the caller once the tid is known */
	return t;
}

/* A new process: copies of the caller's memory (unless CLONE_VM) and descriptors (unless CLONE_FILES). */
static struct process *new_process(struct process *parent, u64 flags)
{
	struct process *p = process_alloc();

	if (!p)
		return NULL;
	memcpy(p->comm, parent->comm, sizeof(p->comm));
	p->exe = parent->exe;
	p->arg_start = parent->arg_start;
	p->arg_end = parent->arg_end;
	p->no_new_privs = parent->no_new_privs;
	p->timer_slack_ns = parent->timer_slack_ns;
	p->nr_groups = parent->nr_groups;
	memcpy(p->groups, parent->groups, sizeof(p->groups));
	p->exit_signal = (int)(flags & CSIGNAL);
	p->nproc_cur = READ_ONCE(parent->nproc_cur);
	p->nproc_max = READ_ONCE(parent->nproc_max);
	if (flags & CLONE_VM) {
		vm_get(parent->vm);
		p->vm = parent->vm;
	} else {
		p->vm = vm_clone(parent->vm);
	}
	if (flags & CLONE_FILES) {
		files_get(parent->files);
		p->files = parent->files;
	} else {
		p->files = files_clone(parent->files);
	}
	if ((flags & CLONE_FS) && parent->fs) {
		fs_struct_get(parent->fs);
		p->fs = parent->fs;
	} else {
		p->fs = fs_struct_clone(parent->fs);
	}
	if (!p->vm || !p->files || !p->fs) {
		if (p->vm)
			vm_put(p->vm);
		if (p->files)
			files_put(p->files);
		fs_struct_put(p->fs);
		kfree(p);
		return NULL;
	}
	memcpy(p->action, parent->action, sizeof(p->action)); /* parent->lock not needed: a copy */
	return p;
}

void vfork_release(struct task *t)
{
	struct vfork_wait *vw;
	unsigned long irq;

	if (!READ_ONCE(t->vfork_done))
		return; /* only t sets it non-NULL (before it runs) or its parent clears it */
	irq = spin_lock_irqsave(&proc_lock);
	vw = t->vfork_done;
	if (vw) {
		t->vfork_done = NULL;
		vw->done = true;
		/* Under proc_lock: the parent retakes it before its stack frame goes. */
		wake_up_all(&vw->wq);
	}
	spin_unlock_irqrestore(&proc_lock, irq);
}

/*
 * The vfork caller's side: sleeps until child releases vw or a fatal
 * signal comes. Then, under proc_lock, either the child has released vw
 * (and is done with it: it did so under that lock) or the caller unhooks
 * it, so the child never writes into a frame that has gone. The caller
 * holds a reference on child throughout.
 */
static void vfork_wait(struct task *child, struct vfork_wait *vw)
{
	struct task *self = current_task();
	struct waiter w = { .task = NULL };
	unsigned long irq;

	for (;;) {
		/* Killable: the child may run for long (the hung-task check leaves it alone). */
		wait_prepare_state(&vw->wq, &w, TASK_KILLABLE);
		if (READ_ONCE(vw->done) || signal_fatal_pending(self))
			break;
		schedule();
	}
	wait_finish(&vw->wq, &w);
	irq = spin_lock_irqsave(&proc_lock);
	if (!vw->done)
		child->vfork_done = NULL; /* killed first: the child goes on alone */
	spin_unlock_irqrestore(&proc_lock, irq);
}

static long do_clone(struct user_regs *regs, u64 flags, u64 newsp, int *parent_tid, int *child_tid,
		     u64 tls)
{
	struct process *parent = current_process(), *p;
	struct vfork_wait vw;
	unsigned long irq;
	struct task *t;
	int tid, err = check_flags(flags);

	if (err)
		return err;
	if (thread_count() >= MIN(proc_max_threads(), READ_ONCE(parent->nproc_cur)))
		return -EAGAIN; /* a quick look; the check that counts is made below, with the link */
	p = flags & CLONE_THREAD ? parent : new_process(parent, flags);
	if (!p)
		return -ENOMEM;
	t = child_task(p, regs, flags, newsp, tls);
	if (!t) {
		if (p != parent) {
			vm_put(p->vm);
			files_put(p->files);
			fs_struct_put(p->fs);
			kfree(p);
		}
		return -ENOMEM;
	}
	t->mm = vm_arch_mm(p->vm);
	tid = t->pid;
	if (flags & CLONE_CHILD_CLEARTID)
		t->clear_child_tid = child_tid;
	/* Written before the child can run, as Linux does; a bad pointer is ignored there too. */
	if (flags & CLONE_PARENT_SETTID)
		(void)copy_to_user(parent_tid, &tid, sizeof(tid));
	if (flags & CLONE_CHILD_SETTID)
		(void)vm_write(p->vm, (uintptr_t)child_tid, &tid, sizeof(tid));

	irq = spin_lock_irqsave(&proc_lock);
	err = proc_may_add_thread_locked(parent) ? 0 : -EAGAIN;
	if (err || parent->group_exiting || parent->exec_task) {
		/* Over a limit, or being killed or replaced: no new threads or children now. */
		spin_unlock_irqrestore(&proc_lock, irq);
		kfree(t->thread_arg); /* its start block: it never ran */
		task_put(t);
		if (p != parent) {
			vm_put(p->vm);
			files_put(p->files);
			fs_struct_put(p->fs);
			kfree(p);
		}
		return -EAGAIN;
	}
	if (flags & CLONE_THREAD) {
		thread_link_locked(p, t);
	} else {
		p->pid = tid;
		p->leader = t;
		process_link_locked(p, parent, t);
	}
	if (flags & CLONE_VFORK) {
		wait_queue_init(&vw.wq);
		vw.done = false;
		t->vfork_done = &vw;
		task_get(t); /* ours until the wait ends: the child may exit and be freed meanwhile */
	}
	spin_unlock_irqrestore(&proc_lock, irq);

	trace_sched_process_fork(current_task(), t);
	task_wake_new(t);
	if (flags & CLONE_VFORK) {
		vfork_wait(t, &vw);
		task_put(t);
	}
	return tid;
}

static long call_fork(struct user_regs *regs)
{
	return do_clone(regs, SIGCHLD, 0, NULL, NULL, 0);
}
SYSCALL_REGISTER(SYS_fork, call_fork);

static long call_vfork(struct user_regs *regs)
{
	return do_clone(regs, CLONE_VM | CLONE_VFORK | SIGCHLD, 0, NULL, NULL, 0);
}
SYSCALL_REGISTER(SYS_vfork, call_vfork);

/* x86-64 order: flags, newsp, parent_tid, child_tid, tls. */
static long call_clone(struct user_regs *regs)
{
	return do_clone(regs, (u64)user_regs_arg(regs, 0), (u64)user_regs_arg(regs, 1),
			(int *)user_regs_arg(regs, 2), (int *)user_regs_arg(regs, 3),
			(u64)user_regs_arg(regs, 4));
}
SYSCALL_REGISTER(SYS_clone, call_clone);

/* ---------------------------------------------------------------- clone3 */

/* Linux's struct clone_args; version 0 ends at tls (64 bytes), 1 at set_tid_size, 2 at cgroup. */
struct k_clone_args {
	u64 flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
	u64 set_tid, set_tid_size, cgroup;
};

#define CLONE_ARGS_SIZE_VER0 64
#define CLONE_CLEAR_SIGHAND  0x100000000ULL
#define CLONE_INTO_CGROUP    0x200000000ULL
#define NSIG_MAX	     64
#define CLONE_ARGS_MAX	     4096 /* Linux: a page */

/*
 * Linux's checks in Linux's order (copy_clone_args_from_user, then
 * clone3_args_valid), then clone's own. set_tid and CLONE_INTO_CGROUP
 * need pid namespaces and cgroups, which Fulcrum has not: -EINVAL.
 */
static long call_clone3(struct user_regs *regs)
{
	const void *uargs = (const void *)user_regs_arg(regs, 0);
	size_t size = (size_t)user_regs_arg(regs, 1);
	struct k_clone_args a = { 0 };

	if (size > CLONE_ARGS_MAX)
		return -E2BIG;
	if (size < CLONE_ARGS_SIZE_VER0)
		return -EINVAL;
	if (copy_from_user(&a, uargs, MIN(size, sizeof(a))))
		return -EFAULT;
	/* Bytes past the fields this kernel knows must be zero. */
	for (size_t off = sizeof(a); off < size; off++) {
		u8 byte;

		if (copy_from_user(&byte, (const u8 *)uargs + off, 1))
			return -EFAULT;
		if (byte)
			return -E2BIG;
	}
	if (a.set_tid_size || a.set_tid)
		return -EINVAL;
	if ((a.exit_signal & ~(u64)CSIGNAL) || a.exit_signal > NSIG_MAX)
		return -EINVAL;
	if ((a.flags & CLONE_INTO_CGROUP) || (a.flags >> 32 & ~(CLONE_CLEAR_SIGHAND >> 32)))
		return -EINVAL;
	if (a.flags & (CLONE_DETACHED | CSIGNAL))
		return -EINVAL;
	if ((a.flags & (CLONE_THREAD | CLONE_PARENT)) && a.exit_signal)
		return -EINVAL;
	if (!a.stack != !a.stack_size)
		return -EINVAL;
	if (a.stack && !access_ok((void *)(uintptr_t)a.stack, a.stack_size))
		return -EINVAL;
	if (a.flags & CLONE_CLEAR_SIGHAND)
		return -EINVAL; /* not offered here (the handlers are always copied) */
	return do_clone(regs, (a.flags & 0xffffffffULL) | a.exit_signal,
			a.stack ? a.stack + a.stack_size : 0, (int *)(uintptr_t)a.parent_tid,
			(int *)(uintptr_t)a.child_tid, a.tls);
}
SYSCALL_REGISTER(SYS_clone3, call_clone3);
