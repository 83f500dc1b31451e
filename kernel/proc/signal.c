/*
 * POSIX signals: queueing them on a process or a thread, waking the
 * thread that should act, and acting on them before a return to ring 3
 * (exit_to_user -> signal_deliver): ignore, terminate the process, or
 * run a handler in a frame the arch builds on the user stack. A system
 * call a signal interrupted (-ERESTARTSYS) is made again or fails with
 * -EINTR. The rules are in signal_rules.h, the system calls in
 * signal_syscalls.c.
 */
#include "proc/signal.h"

#include <arch/signal_frame.h>
#include <arch/user.h>

#include "lib/errno.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "printk.h"
#include "proc/proc_internal.h"
#include "proc/signal_rules.h"
#include "sched/task.h"

/* ---------------------------------------------------------------- the side table */

/*
 * What a pending signal carries (its siginfo) and each thread's alternate
 * stack, keyed by their owner (a struct process for its shared set, a
 * struct task for its own). An entry is written whenever a signal becomes
 * pending and taken when it is delivered, so an entry left by a freed
 * owner whose address comes back is overwritten before it could be read;
 * the free hooks only give the memory back.
 */
struct sig_extra {
	struct sig_extra *next;
	const void *owner;
	int sig; /* 1..64: the siginfo of that pending signal; 0: the owner's alternate stack */
	union {
		struct k_siginfo info;
		struct arch_sigstack stack;
	};
};

#define SIGX_BUCKETS 64

static struct sig_extra *sigx_table[SIGX_BUCKETS];
static struct spinlock sigx_lock = SPINLOCK_INIT; /* inside p->lock */
static u32 sigx_count;

static struct sig_extra **sigx_bucket(const void *owner)
{
	/* Fibonacci hashing of the address; allocations are 16-aligned. */
	return &sigx_table[(((uintptr_t)owner >> 4) * 0x9e3779b97f4a7c15ULL) >> 58];
}

_Static_assert(SIGX_BUCKETS == 1 << (64 - 58), "sigx_bucket's shift");

/* The link to (owner, sig)'s entry, or to the NULL ending its bucket. sigx_lock held. */
static struct sig_extra **sigx_find(const void *owner, int sig)
{
	struct sig_extra **link = sigx_bucket(owner);

	while (*link && ((*link)->owner != owner || (*link)->sig != sig))
		link = &(*link)->next;
	return link;
}

/*
 * Makes (owner, sig)'s entry hold info (or stack), reusing an existing one
 * or taking *spare (kmalloc'd by the caller, outside every lock; set to
 * NULL when taken, else the caller frees it). False when there was
 * neither: the data is lost (delivery then makes a plain siginfo).
 */
static bool sigx_set(const void *owner, int sig, const struct k_siginfo *info,
		     const struct arch_sigstack *stack, struct sig_extra **spare)
{
	unsigned long flags = spin_lock_irqsave(&sigx_lock);
	struct sig_extra **link = sigx_find(owner, sig), *x = *link;

	if (!x && *spare) {
		x = *spare;
		*spare = NULL;
		x->owner = owner;
		x->sig = sig;
		x->next = NULL;
		*link = x;
		sigx_count++;
	}
	if (x && info)
		x->info = *info;
	if (x && stack)
		x->stack = *stack;
	spin_unlock_irqrestore(&sigx_lock, flags);
	return x != NULL;
}

/* Unlinks (owner, sig)'s entry and returns it (the caller frees it), or NULL. */
static struct sig_extra *sigx_take(const void *owner, int sig)
{
	unsigned long flags = spin_lock_irqsave(&sigx_lock);
	struct sig_extra **link = sigx_find(owner, sig), *x = *link;

	if (x) {
		*link = x->next;
		sigx_count--;
	}
	spin_unlock_irqrestore(&sigx_lock, flags);
	return x;
}

/* Frees every entry of owner. */
static void sigx_drop_owner(const void *owner)
{
	struct sig_extra *dead = NULL, **link, *x;
	unsigned long flags = spin_lock_irqsave(&sigx_lock);

	link = sigx_bucket(owner);
	while ((x = *link)) {
		if (x->owner == owner) {
			*link = x->next;
			x->next = dead;
			dead = x;
			sigx_count--;
		} else {
			link = &x->next;
		}
	}
	spin_unlock_irqrestore(&sigx_lock, flags);
	while (dead) {
		x = dead->next;
		kfree(dead);
		dead = x;
	}
}

u32 signal_extra_count(void)
{
	return __atomic_load_n(&sigx_count, __ATOMIC_RELAXED);
}

void signal_get_altstack(struct task *t, struct arch_sigstack *ss)
{
	unsigned long flags = spin_lock_irqsave(&sigx_lock);
	struct sig_extra *x = *sigx_find(t, 0);

	ss->sp = x ? x->stack.sp : 0;
	ss->size = x ? x->stack.size : 0;
	spin_unlock_irqrestore(&sigx_lock, flags);
}

int signal_set_altstack(struct task *t, const struct arch_sigstack *ss)
{
	struct sig_extra *spare;
	bool stored;

	if (!ss->size) {
		kfree(sigx_take(t, 0));
		return 0;
	}
	spare = kmalloc(sizeof(*spare));
	stored = sigx_set(t, 0, NULL, ss, &spare);
	kfree(spare);
	return stored ? 0 : -ENOMEM;
}

void signal_fork_thread(struct task *child, bool shares_vm)
{
	struct arch_sigstack ss;

	signal_get_altstack(current_task(), &ss);
	if (shares_vm)
		ss.size = 0; /* a thread on the same memory must not run handlers on our stack */
	ss.sp = ss.size ? ss.sp : 0;
	(void)signal_set_altstack(child, &ss); /* out of memory: the child just has none */
}

void signal_free_thread(struct task *t)
{
	sigx_drop_owner(t);
}

void signal_free_process(struct process *p)
{
	sigx_drop_owner(p);
}

/* ---------------------------------------------------------------- sending */

void siginfo_from_caller(struct k_siginfo *info, int sig, int code)
{
	struct process *self = current_task()->proc;

	memset(info, 0, sizeof(*info));
	info->si_signo = sig;
	info->si_code = self ? code : SI_KERNEL;
	info->u.kill.pid = self ? self->pid : 0;
	info->u.kill.uid = 0; /* everyone is root */
}

/*
 * Sets sig pending on t (or on p's shared set when t is NULL) with its
 * siginfo. p->lock held. False if it was pending already.
 */
static bool queue_locked(struct process *p, struct task *t, const struct k_siginfo *info,
			 struct sig_extra **spare)
{
	int sig = info->si_signo;
	u64 *pending = t ? &t->sig_pending : &p->shared_pending;

	if (*pending & sig_bit(sig))
		return false;
	*pending |= sig_bit(sig);
	/* Without memory for the siginfo, delivery makes a plain one. */
	(void)sigx_set(t ? (const void *)t : (const void *)p, sig, info, NULL, spare);
	return true;
}

/* Wakes t if it sleeps, so a blocking call sees the signal. p->lock held. */
static void kick(struct task *t)
{
	wake_up_task(t, false);
}

static bool ignored_locked(struct process *p, int sig)
{
	return sig_handler_ignores(sig, p->action[sig - 1].handler);
}

/*
 * Linux's SIGNAL_UNKILLABLE: init takes only the signals it has a handler
 * for; the others are dropped when sent, SIGKILL and SIGSTOP included
 * (there are no pid namespaces, so every sender is inside init's). Its
 * own faults still kill it (signal_force_fault does not come here), and
 * so does the kernel ending its threads (signal_kill_thread). p->lock held.
 */
static bool init_refuses_locked(struct process *p, int sig)
{
	return p == init_process && p->action[sig - 1].handler == SIG_DFL;
}

void signal_kill_thread(struct task *t)
{
	struct process *p = t->proc;
	unsigned long flags;

	if (!p)
		return;
	flags = spin_lock_irqsave(&p->lock);
	t->sig_pending |= sig_bit(SIGKILL);
	kick(t);
	spin_unlock_irqrestore(&p->lock, flags);
}

int signal_send_thread_info(struct task *t, const struct k_siginfo *info)
{
	int sig = info->si_signo;
	struct process *p = t->proc;
	struct sig_extra *spare;
	unsigned long flags;

	if (sig == 0)
		return 0;
	if (!sig_valid(sig))
		return -EINVAL;
	if (!p)
		return 0; /* a kernel thread, or a thread past its exit */
	spare = sig == SIGKILL ? NULL : kmalloc(sizeof(*spare));
	flags = spin_lock_irqsave(&p->lock);
	if (!(ignored_locked(p, sig) && !(t->sig_blocked & sig_bit(sig))) &&
	    !init_refuses_locked(p, sig)) {
		queue_locked(p, t, info, &spare);
		if (!(sig_blockable(t->sig_blocked) & sig_bit(sig)))
			kick(t);
	}
	spin_unlock_irqrestore(&p->lock, flags);
	kfree(spare);
	return 0;
}

/* The thread that should take a process-directed sig, or NULL if all block it. Both locks held. */
static struct task *pick_target_locked(struct process *p, int sig)
{
	struct task *self = current_task();
	struct list_head *pos;

	if (self->proc == p && !(self->sig_blocked & sig_bit(sig)))
		return self;
	list_for_each (pos, &p->threads) {
		struct task *t = list_entry(pos, struct task, thread_node);

		if (!(t->sig_blocked & sig_bit(sig)))
			return t;
	}
	return NULL;
}

/* Does any thread of p block sig? Both locks held. */
static bool blocked_by_any_locked(struct process *p, int sig)
{
	struct list_head *pos;

	list_for_each (pos, &p->threads) {
		struct task *t = list_entry(pos, struct task, thread_node);

		if (t->sig_blocked & sig_bit(sig))
			return true;
	}
	return false;
}

int signal_send_process_info(struct process *p, const struct k_siginfo *info)
{
	int sig = info->si_signo;
	struct sig_extra *spare;
	unsigned long flags;
	struct list_head *pos;
	struct task *target;

	if (sig == 0)
		return 0;
	if (!sig_valid(sig))
		return -EINVAL;
	spare = sig == SIGKILL ? NULL : kmalloc(sizeof(*spare));
	flags = spin_lock_irqsave(&proc_lock);
	spin_lock(&p->lock);
	if (p->zombie || p->group_exiting) {
		/* Nothing left to act on it. */
	} else if (init_refuses_locked(p, sig)) {
		/* Init has no handler for it: dropped. */
	} else if (sig == SIGKILL) {
		/* Every thread dies: each takes it at once, whatever it was doing. */
		list_for_each (pos, &p->threads) {
			struct task *t = list_entry(pos, struct task, thread_node);

			t->sig_pending |= sig_bit(SIGKILL);
			kick(t);
		}
	} else if (!(ignored_locked(p, sig) && !blocked_by_any_locked(p, sig))) {
		queue_locked(p, NULL, info, &spare);
		target = pick_target_locked(p, sig);
		if (target)
			kick(target);
	}
	spin_unlock(&p->lock);
	spin_unlock_irqrestore(&proc_lock, flags);
	kfree(spare);
	return 0;
}

int signal_send_process(struct process *p, int sig)
{
	struct k_siginfo info;

	siginfo_from_caller(&info, sig, SI_USER);
	return signal_send_process_info(p, &info);
}

int signal_send_thread(struct task *t, int sig)
{
	struct k_siginfo info;

	siginfo_from_caller(&info, sig, SI_USER);
	return signal_send_thread_info(t, &info);
}

void signal_child_exited(struct process *parent, struct process *child)
{
	struct k_siginfo info;
	int code, status;
	u64 ticks = child->dead_threads.runtime_ns / SIGINFO_TICK_NS;

	if (!child->exit_signal)
		return;
	sig_chld_code(child->exit_status, &code, &status);
	memset(&info, 0, sizeof(info));
	info.si_signo = child->exit_signal;
	info.si_code = code;
	info.u.chld.pid = child->pid;
	info.u.chld.status = status;
	info.u.chld.utime = (s64)ticks; /* no user/system split is kept: all of it counts as user */
	signal_send_process_info(parent, &info);
}

bool signal_force_fault(int sig, int code, u64 addr)
{
	struct task *t = current_task();
	struct process *p = t->proc;
	struct k_sigaction *ka = &p->action[sig - 1];
	struct k_siginfo info;
	struct sig_extra *spare = kmalloc(sizeof(*spare));
	unsigned long flags;
	bool fatal;

	memset(&info, 0, sizeof(info));
	info.si_signo = sig;
	info.si_code = code;
	info.u.fault.addr = addr;
	flags = spin_lock_irqsave(&p->lock);
	if (ka->handler == SIG_IGN || (t->sig_blocked & sig_bit(sig))) {
		/* Returning to the faulting instruction would only fault again. */
		ka->handler = SIG_DFL;
		t->sig_blocked &= ~sig_bit(sig);
	}
	fatal = ka->handler == SIG_DFL;
	queue_locked(p, t, &info, &spare);
	spin_unlock_irqrestore(&p->lock, flags);
	kfree(spare);
	return fatal;
}

/* ---------------------------------------------------------------- pending and delivery */

bool signal_pending(struct task *t)
{
	struct process *p = t->proc;
	u64 pending;

	if (!p)
		return false;
	/*
	 * A sleeper sets its state, then asks; a sender sets the bit, then
	 * wakes (its lock is a full barrier). This fence orders the sleeper's
	 * side, so one of the two always sees the other.
	 */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	pending = READ_ONCE(t->sig_pending) | READ_ONCE(p->shared_pending);
	return (pending & ~sig_blockable(READ_ONCE(t->sig_blocked))) != 0;
}

bool signal_fatal_pending(struct task *t)
{
	struct process *p = t->proc;
	u64 pending;

	if (!p)
		return false;
	__atomic_thread_fence(__ATOMIC_SEQ_CST); /* as in signal_pending */
	pending = READ_ONCE(t->sig_pending) | READ_ONCE(p->shared_pending);
	pending &= ~sig_blockable(READ_ONCE(t->sig_blocked));
	while (pending) {
		int sig = sig_lowest(pending);

		pending &= ~sig_bit(sig);
		/* A racy read of the action, fine: sigaction after the test is seen at delivery. */
		if (sig == SIGKILL || (READ_ONCE(p->action[sig - 1].handler) == SIG_DFL &&
				       sig_default_action(sig) == SIG_DEFAULT_TERMINATE))
			return true;
	}
	return false;
}

/* The siginfo x carried for sig (x taken from the table, freed here), or a plain one. */
static void use_info(struct sig_extra *x, int sig, struct k_siginfo *info)
{
	if (x && x->info.si_signo == sig) {
		*info = x->info;
	} else {
		memset(info, 0, sizeof(*info));
		info->si_signo = sig;
		info->si_code = SI_KERNEL;
	}
	kfree(x);
}

/* Applies the restart rule to a system call that returned -ERESTARTSYS, once. */
static void settle_syscall(struct user_regs *regs, bool handler, u64 sa_flags)
{
	switch (sig_restart_action(user_regs_syscall_orig(regs) >= 0, user_regs_return(regs),
				   handler, sa_flags)) {
	case SIG_RESTART_CALL:
		user_regs_restart_syscall(regs);
		break;
	case SIG_RESTART_EINTR:
		user_regs_set_return(regs, -EINTR);
		break;
	case SIG_RESTART_NONE:
		break;
	}
	if (handler)
		user_regs_clear_syscall(regs); /* the frame has the outcome: nothing to redo */
}

bool signal_deliver_one(struct user_regs *regs, const u64 *saved_mask)
{
	struct task *t = current_task();
	struct process *p = t->proc;

	for (;;) {
		unsigned long flags = spin_lock_irqsave(&p->lock);
		struct arch_sigstack ss;
		struct sig_extra *x;
		struct k_sigaction ka;
		struct k_siginfo info;
		bool shared;
		u64 old, cur = t->sig_blocked;
		int sig = sig_next(t->sig_pending, p->shared_pending, t->sig_blocked, &shared);

		if (!sig) {
			spin_unlock_irqrestore(&p->lock, flags);
			return false;
		}
		/* The bit and its siginfo go together, under p->lock, as they came. */
		if (shared)
			p->shared_pending &= ~sig_bit(sig);
		else
			t->sig_pending &= ~sig_bit(sig);
		x = sigx_take(shared ? (const void *)p : (const void *)t, sig);
		ka = p->action[sig - 1];
		old = saved_mask ? *saved_mask : cur; /* what the frame restores */
		if (sig != SIGKILL && ka.handler != SIG_DFL && ka.handler != SIG_IGN &&
		    (ka.flags & SA_RESETHAND))
			p->action[sig - 1].handler = SIG_DFL; /* one shot */
		spin_unlock_irqrestore(&p->lock, flags);
		use_info(x, sig, &info);

		if (sig_handler_ignores(sig, ka.handler))
			continue;
		if (sig == SIGKILL || ka.handler == SIG_DFL)
			process_group_exit(sig); /* wait status: killed by sig */

		settle_syscall(regs, true, ka.flags);
		signal_get_altstack(t, &ss);
		if (arch_signal_frame_setup(regs, sig, &info, ka.handler, ka.flags, ka.restorer,
					    old, &ss)) {
			pr_info("signal: pid %d (%s) cannot run its handler of signal %d (%s)\n",
				p->pid, t->comm, sig,
				ka.flags & SA_RESTORER ? "no room for a frame" : "no SA_RESTORER");
			process_group_exit(SIGSEGV);
		}
		/* As Linux: the handler runs with the mask in force (a temporary one included). */
		flags = spin_lock_irqsave(&p->lock);
		t->sig_blocked = sig_handler_mask(sig, cur, ka.mask, ka.flags);
		spin_unlock_irqrestore(&p->lock, flags);
		return true;
	}
}

int signal_dequeue(u64 set, struct k_siginfo *info)
{
	struct task *t = current_task();
	struct process *p = t->proc;
	unsigned long flags = spin_lock_irqsave(&p->lock);
	struct sig_extra *x;
	bool shared;
	int sig = sig_next(t->sig_pending & set, p->shared_pending & set, 0, &shared);

	if (!sig) {
		spin_unlock_irqrestore(&p->lock, flags);
		return 0;
	}
	if (shared)
		p->shared_pending &= ~sig_bit(sig);
	else
		t->sig_pending &= ~sig_bit(sig);
	x = sigx_take(shared ? (const void *)p : (const void *)t, sig);
	spin_unlock_irqrestore(&p->lock, flags);
	use_info(x, sig, info);
	return sig;
}

void signal_deliver(struct user_regs *regs)
{
	struct task *t = current_task();
	struct process *p = t->proc;

	if (!p)
		return;
	if (t->sig_restore_blocked) {
		/*
		 * ppoll/pselect6 was interrupted under its own mask: the first
		 * handler's frame restores the mask from before the call; with
		 * no handler, it comes back now (Linux's TIF_RESTORE_SIGMASK).
		 */
		u64 saved = t->sig_saved_blocked;

		t->sig_restore_blocked = false;
		if (signal_deliver_one(regs, &saved)) {
			while (signal_deliver_one(regs, NULL))
				;
		} else {
			signal_set_blocked(saved);
		}
	} else if (READ_ONCE(t->sig_pending) | READ_ONCE(p->shared_pending)) {
		/* Racy peek, fine: a signal sent after it is seen at the next return (a tick at worst). */
		while (signal_deliver_one(regs, NULL))
			; /* each handler's frame nests on the last, as Linux does */
	}
	settle_syscall(regs, false, 0); /* -ERESTARTSYS and no handler ran: make the call again */
}

void signal_reset_for_exec(struct process *p)
{
	unsigned long flags = spin_lock_irqsave(&p->lock);

	/* The handlers' code is gone; SIG_IGN stays, and the mask and pending signals stay. */
	for (int i = 0; i < NSIG; i++) {
		if (p->action[i].handler != SIG_IGN)
			p->action[i].handler = SIG_DFL;
		p->action[i].flags = 0;
		p->action[i].restorer = 0;
		p->action[i].mask = 0;
	}
	spin_unlock_irqrestore(&p->lock, flags);
	kfree(sigx_take(current_task(), 0)); /* no alternate stack either */
}
