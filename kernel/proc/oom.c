/*
 * The out-of-memory killer. When a user page fault finds no page to give
 * (the page allocator is down to user_mem_reserve=), the faulting thread
 * does not die for it: oom_kill() picks the process whose death frees the
 * most, as Linux's badness does (resident pages plus page-table pages;
 * Fulcrum has no swap and no oom_score_adj), sends it SIGKILL and reports
 * it in Linux's words, and the faulting thread sleeps a moment and tries
 * the access again. init is never picked while another process could be.
 * While a victim still holds its address space no second one is picked
 * (its memory is on the way back), unless it has held it for
 * OOM_VICTIM_WAIT_NS, say because it is stuck: then the next one goes.
 */
#include <arch/memory.h>
#include <arch/time.h>

#include "mm/page_alloc.h"
#include "mm/vm.h"
#include "printk.h"
#include "proc/oom.h"
#include "proc/proc_internal.h"
#include "proc/siginfo.h"
#include "proc/signal.h"
#include "sched/timed_wait.h"

#define OOM_VICTIM_WAIT_NS (2ULL * 1000000000)
#define OOM_RETRY_NS	   (2ULL * 1000000)

static struct spinlock oom_lock = SPINLOCK_INIT; /* one CPU picks at a time */
static u64 oom_kills;				 /* atomic */

struct oom_scan {
	struct process *victim, *init;
	u64 victim_points, init_points, now;
	struct vm_usage victim_use, init_use;
	bool waiting; /* an earlier victim is still giving its memory back */
};

/* Called for every process with proc_lock held (process_release clears p->vm under it). */
static void oom_consider(struct process *p, void *arg)
{
	struct oom_scan *s = arg;
	struct vm_usage u;
	u64 points;

	if (p->oom_victim) {
		if (!READ_ONCE(p->mem_released) && s->now - p->oom_kill_ns < OOM_VICTIM_WAIT_NS)
			s->waiting = true;
		return; /* dying already: killing it again frees nothing more */
	}
	if (!p->vm || p->zombie)
		return;
	vm_usage(p->vm, &u);
	points = u.resident_pages + u.table_pages;
	if (p == init_process) {
		s->init = p;
		s->init_points = points;
		s->init_use = u;
	} else if (!s->victim || points > s->victim_points) {
		s->victim = p;
		s->victim_points = points;
		s->victim_use = u;
	}
}

void oom_kill(void)
{
	struct oom_scan s = { .now = arch_clock_ns() };
	struct process *self = current_process();
	struct k_siginfo info = { .si_signo = SIGKILL, .si_code = SI_KERNEL };
	unsigned long flags;

	flags = arch_irq_save();
	if (!spin_trylock(&oom_lock)) {
		arch_irq_restore(flags);
		return; /* another CPU is picking: its victim will do for us too */
	}
	spin_lock(&proc_lock);
	process_for_each_locked(oom_consider, &s);
	if (s.waiting) {
		s.victim = NULL;
	} else if (!s.victim && s.init) {
		s.victim = s.init; /* nothing else left to kill */
		s.victim_use = s.init_use;
	}
	if (s.victim) {
		s.victim->oom_victim = true;
		s.victim->oom_kill_ns = s.now;
		process_get(s.victim);
	}
	spin_unlock(&proc_lock);
	spin_unlock_irqrestore(&oom_lock, flags);
	if (!s.victim)
		return;
	__atomic_add_fetch(&oom_kills, 1, __ATOMIC_RELAXED);
	pr_err("oom: pid %d (%s) invoked the OOM killer: %llu pages free, %llu kept for the kernel\n",
	       self ? self->pid : 0, self ? self->comm : "kernel",
	       (unsigned long long)page_alloc_free_pages(),
	       (unsigned long long)((u64)vm_user_mem_reserve >> PAGE_SHIFT));
	pr_err("Out of memory: Killed process %d (%s) total-vm:%llukB, anon-rss:%llukB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:%llukB oom_score_adj:0\n",
	       s.victim->pid, s.victim->comm,
	       (unsigned long long)(s.victim_use.mapped_pages * (PAGE_SIZE / 1024)),
	       (unsigned long long)(s.victim_use.resident_pages * (PAGE_SIZE / 1024)),
	       (unsigned long long)(s.victim_use.table_pages * (PAGE_SIZE / 1024)));
	signal_send_process_info(s.victim, &info);
	process_put(s.victim);
}

void oom_wait_and_retry(void)
{
	oom_kill();
	/* A signal (SIGKILL when we are the victim) ends the nap at once. */
	sleep_ns_interruptible(OOM_RETRY_NS);
}

u64 oom_kill_count(void)
{
	return __atomic_load_n(&oom_kills, __ATOMIC_RELAXED);
}
