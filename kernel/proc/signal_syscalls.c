/*
 * The signal system calls, Linux's x86-64 forms: rt_sigaction,
 * rt_sigprocmask, rt_sigpending, rt_sigsuspend, pause, rt_sigreturn,
 * sigaltstack, kill, tkill and tgkill. Sets are 8 bytes (sigsetsize must
 * say so).
 *
 * There are no process groups or sessions: kill(0, sig) and kill(-pgid,
 * sig) take the caller's process as its whole group (-pgid must be the
 * caller's pid, else -ESRCH); kill(-1, sig) signals every process but
 * init and the caller. Everyone is root, so no call is refused -EPERM.
 */
#include <arch/signal_frame.h>
#include <arch/uaccess.h>
#include <arch/user.h>

#include "lib/errno.h"
#include "mm/heap.h"
#include "printk.h"
#include "proc/current.h"
#include "proc/proc_internal.h"
#include "proc/signal.h"
#include "proc/signal_rules.h"
#include "proc/syscall.h"

/* ---------------------------------------------------------------- handlers and masks */

/* Takes sig out of every pending set of p: its action now ignores it. Both locks held. */
static void discard_pending_locked(struct process *p, int sig)
{
	struct list_head *pos;

	p->shared_pending &= ~sig_bit(sig);
	list_for_each (pos, &p->threads)
		list_entry(pos, struct task, thread_node)->sig_pending &= ~sig_bit(sig);
}

static long sys_rt_sigaction(int sig, const struct k_sigaction *act, struct k_sigaction *oact,
			     size_t sigsetsize)
{
	struct process *p = current_process();
	struct k_sigaction new, old;
	unsigned long flags;

	if (sigsetsize != sizeof(sigset_t))
		return -EINVAL;
	if (!sig_valid(sig) || (act && (sig_bit(sig) & SIG_UNBLOCKABLE)))
		return -EINVAL;
	if (act && copy_from_user(&new, act, sizeof(new)))
		return -EFAULT;
	flags = spin_lock_irqsave(&proc_lock);
	spin_lock(&p->lock);
	old = p->action[sig - 1];
	if (act) {
		new.mask = sig_blockable(new.mask);
		p->action[sig - 1] = new;
		/* POSIX: a pending signal whose action becomes "ignore" is discarded. */
		if (sig_handler_ignores(sig, new.handler))
			discard_pending_locked(p, sig);
	}
	spin_unlock(&p->lock);
	spin_unlock_irqrestore(&proc_lock, flags);
	if (oact && copy_to_user(oact, &old, sizeof(old)))
		return -EFAULT;
	return 0;
}
SYSCALL_DEFINE4(rt_sigaction, int, const struct k_sigaction *, struct k_sigaction *, size_t);

/*
 * The calling thread's mask becomes blocked. Signals sent to the process
 * that it now blocks go to a thread that does not (Linux's
 * retarget_shared_pending), so they are not stuck behind this one.
 */
void signal_set_blocked(u64 blocked)
{
	struct task *self = current_task();
	struct process *p = self->proc;
	unsigned long flags = spin_lock_irqsave(&proc_lock);
	u64 stuck;

	spin_lock(&p->lock);
	stuck = p->shared_pending & blocked & ~self->sig_blocked;
	self->sig_blocked = blocked;
	while (stuck) {
		int sig = sig_lowest(stuck);
		struct list_head *pos;

		stuck &= ~sig_bit(sig);
		list_for_each (pos, &p->threads) {
			struct task *t = list_entry(pos, struct task, thread_node);

			if (!(t->sig_blocked & sig_bit(sig))) {
				wake_up_task(t, false);
				break;
			}
		}
	}
	spin_unlock(&p->lock);
	spin_unlock_irqrestore(&proc_lock, flags);
}

static long sys_rt_sigprocmask(int how, const sigset_t *set, sigset_t *oset, size_t sigsetsize)
{
	u64 old = READ_ONCE(current_task()->sig_blocked), want, blocked;

	if (sigsetsize != sizeof(sigset_t))
		return -EINVAL;
	if (set) {
		if (copy_from_user(&want, set, sizeof(want)))
			return -EFAULT;
		if (sig_procmask(how, old, want, &blocked))
			return -EINVAL;
		signal_set_blocked(blocked); /* only this thread changes its mask: old is still current */
	}
	if (oset && copy_to_user(oset, &old, sizeof(old)))
		return -EFAULT;
	return 0;
}
SYSCALL_DEFINE4(rt_sigprocmask, int, const sigset_t *, sigset_t *, size_t);

static long sys_rt_sigpending(sigset_t *uset, size_t sigsetsize)
{
	struct task *t = current_task();
	struct process *p = t->proc;
	unsigned long flags;
	u64 pending;

	if (sigsetsize > sizeof(sigset_t))
		return -EINVAL;
	flags = spin_lock_irqsave(&p->lock);
	pending = (t->sig_pending | p->shared_pending) & t->sig_blocked;
	spin_unlock_irqrestore(&p->lock, flags);
	return copy_to_user(uset, &pending, sigsetsize);
}
SYSCALL_DEFINE2(rt_sigpending, sigset_t *, size_t);

/*
 * ppoll and pselect6 (current.h): a mask for the length of the call. When
 * the call was interrupted, signal_deliver puts the old mask back after
 * the handler's frame has saved it, so the handler runs under the call's
 * mask and its sigreturn restores the old one.
 */
void current_sigmask_begin(u64 mask)
{
	struct task *t = current_task();

	t->sig_saved_blocked = READ_ONCE(t->sig_blocked);
	t->sig_restore_blocked = true;
	signal_set_blocked(sig_blockable(mask));
}

void current_sigmask_end(bool interrupted)
{
	struct task *t = current_task();

	if (!t->sig_restore_blocked || interrupted)
		return;
	t->sig_restore_blocked = false;
	signal_set_blocked(t->sig_saved_blocked);
}

/*
 * Waits with mask until a signal runs a handler (or ends the process),
 * then fails with -EINTR: the handler's frame is built here, with the mask
 * from before the call as the one sigreturn restores. Signals that are
 * ignored do not end the wait. rt_sigsuspend and pause.
 */
static long suspend(struct user_regs *regs, u64 mask)
{
	struct task *t = current_task();
	struct process *p = t->proc;
	unsigned long flags = spin_lock_irqsave(&p->lock);
	u64 saved = t->sig_blocked;

	t->sig_blocked = sig_blockable(mask);
	spin_unlock_irqrestore(&p->lock, flags);
	for (;;) {
		for (;;) {
			WRITE_ONCE(t->state, TASK_INTERRUPTIBLE);
			if (signal_pending(t))
				break;
			schedule();
		}
		WRITE_ONCE(t->state, TASK_RUNNING);
		user_regs_set_return(regs, -EINTR); /* the frame's: what the call returns */
		if (signal_deliver_one(regs, &saved))
			break;
	}
	return user_regs_return(regs); /* the handler's rax: keep what the frame set */
}

static long call_rt_sigsuspend(struct user_regs *regs)
{
	const sigset_t *umask = (const sigset_t *)user_regs_arg(regs, 0);
	u64 mask;

	if ((size_t)user_regs_arg(regs, 1) != sizeof(sigset_t))
		return -EINVAL;
	if (copy_from_user(&mask, umask, sizeof(mask)))
		return -EFAULT;
	return suspend(regs, mask);
}
SYSCALL_REGISTER(SYS_rt_sigsuspend, call_rt_sigsuspend);

static long call_pause(struct user_regs *regs)
{
	return suspend(regs, READ_ONCE(current_task()->sig_blocked));
}
SYSCALL_REGISTER(SYS_pause, call_pause);

/* ---------------------------------------------------------------- frames and stacks */

static long call_rt_sigreturn(struct user_regs *regs)
{
	struct task *t = current_task();
	struct process *p = t->proc;
	u64 sp = user_regs_sp(regs), mask;
	struct arch_sigstack ss, cur;
	unsigned long flags;

	if (arch_signal_frame_restore(regs, &mask, &ss)) {
		pr_info("signal: pid %d (%s) rt_sigreturn with a bad frame at %#llx: SIGSEGV\n",
			p->pid, t->comm, (unsigned long long)sp);
		process_group_exit(SIGSEGV);
	}
	flags = spin_lock_irqsave(&p->lock);
	t->sig_blocked = sig_blockable(mask);
	spin_unlock_irqrestore(&p->lock, flags);
	/*
	 * uc_stack may change the alternate stack, as on Linux: not while the
	 * thread is still on it (the usual case after an SA_ONSTACK handler),
	 * and never to one too small.
	 */
	signal_get_altstack(t, &cur);
	if (!arch_on_sigstack(&cur, sp) && (ss.size == 0 || ss.size >= MINSIGSTKSZ) &&
	    (ss.sp != cur.sp || ss.size != cur.size))
		(void)signal_set_altstack(t, &ss);
	return user_regs_return(regs); /* the dispatcher writes rax: give it the restored one */
}
SYSCALL_REGISTER(SYS_rt_sigreturn, call_rt_sigreturn);

static long call_sigaltstack(struct user_regs *regs)
{
	const struct k_stack *uss = (const struct k_stack *)user_regs_arg(regs, 0);
	struct k_stack *uoss = (struct k_stack *)user_regs_arg(regs, 1);
	struct task *t = current_task();
	u64 sp = user_regs_sp(regs);
	struct arch_sigstack cur, ss;
	struct k_stack old = { 0 }, new;
	int err;

	signal_get_altstack(t, &cur);
	old.ss_sp = cur.sp;
	old.ss_size = cur.size;
	old.ss_flags = !cur.size ? SS_DISABLE : arch_on_sigstack(&cur, sp) ? SS_ONSTACK : 0;
	if (uss) {
		if (copy_from_user(&new, uss, sizeof(new)))
			return -EFAULT;
		if (arch_on_sigstack(&cur, sp))
			return -EPERM; /* not while running on it */
		if (new.ss_flags != 0 && new.ss_flags != SS_ONSTACK &&new.ss_flags != SS_DISABLE)
			return -EINVAL; /* SS_AUTODISARM is not supported */
		if (new.ss_flags == SS_DISABLE) {
			ss.sp = 0;
			ss.size = 0;
		} else {
			if (new.ss_size < MINSIGSTKSZ)
				return -ENOMEM;
			ss.sp = new.ss_sp;
			ss.size = new.ss_size;
		}
		err = signal_set_altstack(t, &ss);
		if (err)
			return err;
	}
	if (uoss && copy_to_user(uoss, &old, sizeof(old)))
		return -EFAULT;
	return 0;
}
SYSCALL_REGISTER(SYS_sigaltstack, call_sigaltstack);

/* ---------------------------------------------------------------- kill, tkill, tgkill */

struct kill_all {
	struct process **procs;
	u32 n, max;
	int self;
};

/* process_for_each: every process but init and the caller, counted (proc_lock held). */
static void collect_for_kill(struct process *p, void *arg)
{
	struct kill_all *k = arg;

	if (p->pid > 1 && p->pid != k->self && !p->zombie && k->n < k->max) {
		process_get(p);
		k->procs[k->n++] = p;
	}
}

static long kill_all(int sig)
{
	struct k_siginfo info;
	struct kill_all k = { .self = current_process()->pid };
	long err = 0;

	k.max = process_count() + 16; /* and a few created meanwhile; later ones are missed */
	k.procs = kmalloc(k.max * sizeof(*k.procs));
	if (!k.procs)
		return -ENOMEM;
	process_for_each(collect_for_kill, &k);
	siginfo_from_caller(&info, sig, SI_USER);
	for (u32 i = 0; i < k.n; i++) {
		signal_send_process_info(k.procs[i], &info);
		process_put(k.procs[i]);
	}
	if (!k.n)
		err = -ESRCH;
	kfree(k.procs);
	return err;
}

static long sys_kill(int pid, int sig)
{
	struct process *self = current_process(), *p;
	struct k_siginfo info;
	long err;

	if (pid == -1)
		return sig_valid(sig) || sig == 0 ? kill_all(sig) : -EINVAL;
	if (pid == 0 || pid == -self->pid)
		pid = self->pid; /* the caller's process group: just the caller here */
	else if (pid < 0)
		return -ESRCH;
	p = process_find(pid);
	if (!p)
		return -ESRCH;
	if (sig_valid(sig) || sig == 0) {
		siginfo_from_caller(&info, sig, SI_USER);
		err = signal_send_process_info(p, &info);
	} else {
		err = -EINVAL;
	}
	process_put(p);
	return err;
}
SYSCALL_DEFINE2(kill, int, int);

/*
 * Sends sig to thread tid, if it belongs to process tgid (tgid 0: any).
 * The thread is checked and signalled under proc_lock, so its process
 * cannot be freed in between.
 */
static long send_tkill(int tgid, int tid, int sig)
{
	struct task *t = thread_find(tid);
	struct k_siginfo info;
	unsigned long flags;
	long err = -ESRCH;

	if (!t)
		return -ESRCH;
	siginfo_from_caller(&info, sig, SI_TKILL);
	flags = spin_lock_irqsave(&proc_lock);
	if (t->proc && !list_empty(&t->thread_node) && (!tgid || t->proc->pid == tgid))
		err = sig_valid(sig) || sig == 0 ? signal_send_thread_info(t, &info) : -EINVAL;
	spin_unlock_irqrestore(&proc_lock, flags);
	task_put(t);
	return err;
}

static long sys_tkill(int tid, int sig)
{
	if (tid <= 0)
		return -EINVAL;
	return send_tkill(0, tid, sig);
}
SYSCALL_DEFINE2(tkill, int, int);

static long sys_tgkill(int tgid, int tid, int sig)
{
	if (tgid <= 0 || tid <= 0)
		return -EINVAL;
	return send_tkill(tgid, tid, sig);
}
SYSCALL_DEFINE3(tgkill, int, int, int);
