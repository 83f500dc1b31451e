/*
 * The fair class: Linux 3.8's Completely Fair Scheduler on one runqueue
 * per CPU (no group scheduling). Runnable tasks wait in a red-black tree
 * ordered by vruntime, their run time scaled by NICE_0_LOAD / weight; the
 * task furthest behind runs next.
 *
 * Load metric: placement and balancing use 3.8's instantaneous
 * rq->load.weight (the sum of the weights queued, running task included)
 * and the tick-decayed cpu_load[] history of it (load.c, docs/linux-scheduler-facts.md
 * section 10), not per-entity load tracking. That is what 3.8's wake_affine,
 * find_idlest_* and load_balance read, and issue 4 compares against 3.8's
 * stock and balance-map placement; PELT existed in 3.8 only for group
 * shares (section 10), so using it would change the behaviour being compared.
 *
 * Relative vruntime: a task's vruntime means something only next to its
 * queue's min_vruntime, so while a task is between queues it carries
 * vruntime - min_vruntime of the queue it left and the next queue adds its
 * own min_vruntime back:
 *   - dequeue without DEQUEUE_SLEEP (migration, reweight) subtracts;
 *   - task_waking subtracts the old queue's, then the enqueue carries
 *     ENQUEUE_WAKEUP | ENQUEUE_WAKING;
 *   - task_fork places the child on the parent's queue and subtracts;
 *   - enqueue adds unless it is a plain wake-up (ENQUEUE_WAKEUP alone: the
 *     task slept here and its vruntime is still absolute for this queue).
 * So by the time the core calls migrate_task_rq, nothing is left to convert.
 */
#include <arch/smp.h>

#include "lib/errno.h"
#include "lib/string.h"
#include "printk.h"
#include "cmdline.h"
#include "sched/sched.h"
#include "sched/balance.h"
#include "sched/balance_modern.h"
#include "sched/pelt.h"
#include "sched/fair_internal.h"
#include "sched/select.h"

/*
 * sched_fair=eevdf swaps the queue discipline for Linux 6.12's EEVDF
 * (eevdf.c): every operation below that orders, places or preempts hands
 * over to its eevdf_ counterpart first, so with the default cfs nothing
 * here changes. Placement on CPUs and balancing are the same in both modes.
 */
const char *sched_fair_mode = "cfs";
static const char *const sched_fair_modes[] = { "cfs", "eevdf", NULL };
BOOT_OPTION_STRING(sched_fair, "sched_fair", &sched_fair_mode, sched_fair_modes,
		   "fair class queue discipline: cfs (Linux 3.8) or eevdf (Linux 6.12)");

static bool entity_less(const struct rb_node *a, const struct rb_node *b)
{
	return vruntime_before(timeline_entity(a)->vruntime, timeline_entity(b)->vruntime);
}

/* ---------------------------------------------------------------- time */

/* Wall-clock ns to se's virtual ns: delta * NICE_0_LOAD / weight. */
u64 calc_delta_fair(u64 delta, struct sched_entity *se)
{
	/* LAB 2 BEGIN weight */
	if (se_load(se)->weight != NICE_0_LOAD)
		delta = calc_delta_mine(delta, NICE_0_LOAD, se_load(se));
	return delta;
	/* LAB 2 SKELETON
	TODO: scale delta by NICE_0_LOAD / se's weight (calc_delta_mine in core.c).
	return delta;
	   LAB 2 END */
}

/*
 * The period in which every runnable task should run once: the latency
 * target, stretched to nr * min_granularity when more than sched_nr_latency
 * tasks would get slices shorter than the minimum.
 */
static u64 sched_period(u64 nr_running)
{
	/* LAB 2 BEGIN period */
	if (nr_running > sched_nr_latency)
		return nr_running * sysctl_sched_min_granularity;
	return sysctl_sched_latency;
	/* LAB 2 SKELETON
	TODO: stretch the latency past sched_nr_latency tasks.
	(void)nr_running;
	return sysctl_sched_latency;
	   LAB 2 END */
}

/*
 * se's wall-clock share of the period: period * weight / queue weight,
 * counting se as queued if it is not yet (a new task being placed).
 */
static u64 sched_slice(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	u64 slice = sched_period(cfs_rq->nr_running + !se->on_rq);
	struct load_weight with_se, *load = &cfs_rq->load;

	/* LAB 2 BEGIN slice */
	if (!se->on_rq) {
		with_se = cfs_rq->load;
		update_load_add(&with_se, se_load(se)->weight);
		load = &with_se;
	}
	return calc_delta_mine(slice, se_load(se)->weight, load);
	/* LAB 2 SKELETON
	TODO: se's part: slice * its weight / the queue weight (se in it).
	(void)with_se;
	(void)load;
	return slice;
	   LAB 2 END */
}

/* The slice in se's virtual time: how far a new task's vruntime starts behind. */
static u64 sched_vslice(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	return calc_delta_fair(sched_slice(cfs_rq, se), se);
}

static struct sched_entity *first_entity(struct cfs_rq *cfs_rq)
{
	return timeline_entity(rb_first_cached(&cfs_rq->tasks_timeline));
}

/*
 * min_vruntime follows the smallest vruntime on the queue (the running
 * task's or the leftmost waiter's) but never goes back: tasks placed
 * against it must not gain from a task with a small vruntime arriving.
 * Unlike 3.8, a running task already dequeued to sleep no longer counts
 * (later kernels' fix: its vruntime may be relative by then).
 */
static void update_min_vruntime(struct cfs_rq *cfs_rq)
{
	struct sched_entity *curr = cfs_rq->curr, *left = first_entity(cfs_rq);
	u64 vruntime = cfs_rq->min_vruntime;

	/* LAB 2 BEGIN min_vruntime */
	if (curr && !curr->on_rq)
		curr = NULL;
	if (curr)
		vruntime = curr->vruntime;
	if (left)
		vruntime = curr ? vruntime_min(vruntime, left->vruntime) : left->vruntime;
	cfs_rq->min_vruntime = vruntime_max(cfs_rq->min_vruntime, vruntime);
	/* LAB 2 SKELETON
	TODO: min of curr's (if queued) and leftmost's vruntime; never back.
	(void)curr;
	(void)left;
	(void)vruntime;
	   LAB 2 END */
}

/*
 * Charges the running task for the time since it was last charged: the
 * core's accounting advances its run time, this class its vruntime.
 * cfs_rq->curr, when set, is the runqueue's running task.
 */
static void update_curr(struct cfs_rq *cfs_rq)
{
	struct sched_entity *curr = cfs_rq->curr;
	u64 delta;

	if (!curr)
		return;
	delta = update_curr_common(rq_of(cfs_rq));
	if (!delta)
		return;
	curr->vruntime += calc_delta_fair(delta, curr);
	update_min_vruntime(cfs_rq);
}

static void update_curr_fair(struct rq *rq)
{
	if (fair_eevdf()) {
		eevdf_update_curr(&rq->cfs);
		return;
	}
	update_curr(&rq->cfs);
}

/* ---------------------------------------------------------------- queueing */

/*
 * Where a task enters the timeline. A new task (initial) starts one virtual
 * slice after min_vruntime with START_DEBIT, so forking cannot buy CPU
 * time. A waking task gets sleeper credit: it may sit up to one latency
 * period (half of one with GENTLE_FAIR_SLEEPERS) before min_vruntime, so
 * it runs soon, but a long sleep does not buy an unbounded run. Nobody
 * moves backwards: a short sleeper keeps its own, later, vruntime.
 */
static void place_entity(struct cfs_rq *cfs_rq, struct sched_entity *se, bool initial)
{
	u64 vruntime = cfs_rq->min_vruntime;

	/* LAB 3 BEGIN place */
	if (initial && sched_feat(START_DEBIT))
		vruntime += sched_vslice(cfs_rq, se);
	if (!initial) {
		u64 thresh = sysctl_sched_latency;

		if (sched_feat(GENTLE_FAIR_SLEEPERS))
			thresh >>= 1;
		vruntime -= thresh;
	}
	se->vruntime = vruntime_max(se->vruntime, vruntime);
	/* LAB 3 SKELETON
	TODO: a new task (initial) starts one vslice late with START_DEBIT; a waking one
	TODO: up to sched_latency (half of it with GENTLE_FAIR_SLEEPERS) before min_vruntime;
	TODO: and nobody moves backwards.
	(void)initial;
	(void)sched_vslice;
	se->vruntime = vruntime_max(se->vruntime, vruntime);
	   LAB 3 END */
}

static void account_entity_enqueue(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	struct rq *rq = rq_of(cfs_rq);

	update_load_add(&cfs_rq->load, se_load(se)->weight);
	update_load_add(&rq->load, se_load(se)->weight);
	list_add(&se->group_node, &rq->cfs_tasks);
	cfs_rq->nr_running++;
}

static void account_entity_dequeue(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	struct rq *rq = rq_of(cfs_rq);

	update_load_sub(&cfs_rq->load, se_load(se)->weight);
	update_load_sub(&rq->load, se_load(se)->weight);
	list_del(&se->group_node);
	cfs_rq->nr_running--;
}

static void enqueue_entity(struct cfs_rq *cfs_rq, struct sched_entity *se, int flags)
{
	/* Back to absolute before update_curr() can move min_vruntime. */
	if (!(flags & ENQUEUE_WAKEUP) || (flags & ENQUEUE_WAKING))
		se->vruntime += cfs_rq->min_vruntime;
	update_curr(cfs_rq);
	pelt_enqueue(rq_of(cfs_rq), task_of(se), flags);
	account_entity_enqueue(cfs_rq, se);
	if (flags & ENQUEUE_WAKEUP)
		place_entity(cfs_rq, se, false);
	if (se != cfs_rq->curr)
		rb_add_cached(&se->run_node, &cfs_rq->tasks_timeline, entity_less);
	se->on_rq = true;
}

static void dequeue_entity(struct cfs_rq *cfs_rq, struct sched_entity *se, int flags)
{
	update_curr(cfs_rq);
	pelt_dequeue(rq_of(cfs_rq), task_of(se), flags);
	clear_buddies(cfs_rq, se);
	if (se != cfs_rq->curr)
		rb_erase_cached(&se->run_node, &cfs_rq->tasks_timeline);
	se->on_rq = false;
	account_entity_dequeue(cfs_rq, se);
	/* Leaving for another queue (or a reweight): keep only the distance to min_vruntime. */
	if (!(flags & DEQUEUE_SLEEP))
		se->vruntime -= cfs_rq->min_vruntime;
	update_min_vruntime(cfs_rq);
}

static void enqueue_task_fair(struct rq *rq, struct task *p, int flags)
{
	if (fair_eevdf()) {
		eevdf_enqueue_task(rq, p, flags);
		return;
	}
	if (p->se.on_rq) {
		pr_err("sched: %s enqueued twice on cpu%u\n", p->comm, rq->cpu);
		return;
	}
	enqueue_entity(&rq->cfs, &p->se, flags);
	if (sched_feat(SCHED_VERIFY))
		fair_verify(rq);
}

static void dequeue_task_fair(struct rq *rq, struct task *p, int flags)
{
	if (fair_eevdf()) {
		eevdf_dequeue_task(rq, p, flags);
		return;
	}
	if (!p->se.on_rq) {
		pr_err("sched: %s dequeued but not queued on cpu%u\n", p->comm, rq->cpu);
		return;
	}
	dequeue_entity(&rq->cfs, &p->se, flags);
	if (sched_feat(SCHED_VERIFY))
		fair_verify(rq);
}

/* ---------------------------------------------------------------- picking */

/*
 * Buddies bend "leftmost runs next" for a reason, while the bend stays
 * within one wake-up granularity: next is a wakee that preempted (or any
 * wakee with NEXT_BUDDY), last is the task it preempted (cache still warm,
 * LAST_BUDDY), skip is a task that yielded. SCHED_IDLE tasks never get
 * preference.
 */
static void set_next_buddy(struct sched_entity *se)
{
	if (task_of(se)->policy != SCHED_IDLE)
		cfs_rq_of(se)->next = se;
}

static void set_last_buddy(struct sched_entity *se)
{
	if (task_of(se)->policy != SCHED_IDLE)
		cfs_rq_of(se)->last = se;
}

static void set_skip_buddy(struct sched_entity *se)
{
	cfs_rq_of(se)->skip = se;
}

/*
 * The wake-up granularity in se's virtual time. Converting with the
 * wakee's weight (not curr's) makes a light wakee need a bigger lead to
 * preempt and a heavy one a smaller lead.
 */
static u64 wakeup_gran(struct sched_entity *se)
{
	/* LAB 3 BEGIN wakeup_gran */
	return calc_delta_fair(sysctl_sched_wakeup_granularity, se);
	/* LAB 3 SKELETON
	TODO: sysctl_sched_wakeup_granularity in se's virtual time (calc_delta_fair).
	(void)se;
	return 0;
	   LAB 3 END */
}

/*
 * Should se run instead of curr? -1: se is not behind curr; 0: behind, but
 * by no more than the granularity; 1: by more than it.
 *
 *              |<- gran ->|
 *   ---+-------+----------+----------------> vruntime
 *     se=1    se=0      curr   se=-1 beyond
 */
static int wakeup_preempt_entity(struct sched_entity *curr, struct sched_entity *se)
{
	s64 vdiff = (s64)(curr->vruntime - se->vruntime);

	/* LAB 3 BEGIN wakeup_preempt */
	if (vdiff <= 0)
		return -1;
	return (u64)vdiff > wakeup_gran(se) ? 1 : 0;
	/* LAB 3 SKELETON
	TODO: -1 if se is not behind curr, 1 if behind by more than wakeup_gran(se), else 0.
	(void)vdiff;
	(void)wakeup_gran;
	return -1;
	   LAB 3 END */
}

static struct sched_entity *pick_next_entity(struct cfs_rq *cfs_rq)
{
	struct sched_entity *left = first_entity(cfs_rq), *se = left;

	/* Skip a yielder if the runner-up is not too far behind. */
	if (cfs_rq->skip == se) {
		struct sched_entity *second = timeline_entity(rb_next(&se->run_node));

		if (second && wakeup_preempt_entity(second, left) < 1)
			se = second;
	}
	/* Priority: next over last over the skip choice, each only if close to leftmost. */
	if (cfs_rq->last && wakeup_preempt_entity(cfs_rq->last, left) < 1)
		se = cfs_rq->last;
	if (cfs_rq->next && wakeup_preempt_entity(cfs_rq->next, left) < 1)
		se = cfs_rq->next;
	clear_buddies(cfs_rq, se);
	return se;
}

/* se starts running: out of the timeline, and its slice starts now. */
static void set_next_entity(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	if (se->on_rq)
		rb_erase_cached(&se->run_node, &cfs_rq->tasks_timeline);
	pelt_update(rq_of(cfs_rq), task_of(se));
	cfs_rq->curr = se;
}

static struct task *pick_next_task_fair(struct rq *rq)
{
	struct cfs_rq *cfs_rq = &rq->cfs;
	struct sched_entity *se;

	if (fair_eevdf())
		return eevdf_pick_next_task(rq);
	if (!cfs_rq->nr_running)
		return NULL;
	se = pick_next_entity(cfs_rq);
	set_next_entity(cfs_rq, se);
	if (sched_feat(SCHED_VERIFY))
		fair_verify(rq);
	return task_of(se);
}

/* prev stops running: charge it and, if still runnable, put it back in the timeline. */
static void put_prev_task_fair(struct rq *rq, struct task *prev)
{
	struct cfs_rq *cfs_rq = &rq->cfs;
	struct sched_entity *se = &prev->se;

	if (fair_eevdf()) {
		eevdf_put_prev_task(rq, prev);
		return;
	}
	if (se->on_rq) {
		update_curr(cfs_rq);
		rb_add_cached(&se->run_node, &cfs_rq->tasks_timeline, entity_less);
	}
	pelt_update(rq, prev);
	cfs_rq->curr = NULL;
}

/* ---------------------------------------------------------------- preemption */

/*
 * From the tick: curr is preempted once it has run its ideal slice, or,
 * after at least min_granularity, when it is more than a slice of
 * vruntime ahead of the leftmost waiter. (3.8 compares that virtual lead
 * with the wall-clock slice; so do we.)
 */
static void check_preempt_tick(struct cfs_rq *cfs_rq, struct sched_entity *curr)
{
	u64 ideal = sched_slice(cfs_rq, curr);
	u64 ran = task_of(curr)->sum_exec_runtime - task_of(curr)->prev_sum_exec_runtime;
	struct sched_entity *left;
	s64 lead;

	/* LAB 2 BEGIN tick */
	if (ran > ideal) {
		resched_curr(rq_of(cfs_rq));
		/* Its slice is used up: no buddy preference may give it another. */
		clear_buddies(cfs_rq, curr);
		return;
	}
	if (ran < sysctl_sched_min_granularity)
		return;
	left = first_entity(cfs_rq);
	if (!left)
		return;
	lead = (s64)(curr->vruntime - left->vruntime);
	if (lead > 0 && (u64)lead > ideal)
		resched_curr(rq_of(cfs_rq));
	/* LAB 2 SKELETON
	TODO: resched past the ideal slice (and clear curr's buddies), or,
	TODO: after min_granularity, if curr leads the leftmost by over a slice.
	(void)ideal;
	(void)ran;
	(void)left;
	(void)lead;
	   LAB 2 END */
}

static void task_tick_fair(struct rq *rq, struct task *curr)
{
	struct cfs_rq *cfs_rq = &rq->cfs;

	if (fair_eevdf()) {
		eevdf_task_tick(rq, curr);
		pelt_update(rq, curr);
		return;
	}
	update_curr(cfs_rq);
	pelt_update(rq, curr);
	if (cfs_rq->nr_running > 1)
		check_preempt_tick(cfs_rq, &curr->se);
}

/*
 * p was just queued on rq: preempt rq->curr if p is more than the wake-up
 * granularity (in p's virtual time) behind it. Wake flags other than
 * WF_FORK do not matter here, as in 3.8.
 */
static void check_preempt_wakeup(struct rq *rq, struct task *p, int wake_flags)
{
	struct task *curr = rq->curr;
	struct sched_entity *se = &curr->se, *pse = &p->se;
	struct cfs_rq *cfs_rq = &rq->cfs;
	bool scale = cfs_rq->nr_running >= sched_nr_latency;
	bool next_buddy_marked = false;

	if (fair_eevdf()) {
		eevdf_check_preempt(rq, p, wake_flags);
		return;
	}
	/*
	 * The core settles an idle or lower-class curr itself and calls this
	 * only for a fair curr; a direct caller may still pass an idle CPU.
	 */
	if (curr == rq->idle) {
		resched_curr(rq);
		return;
	}
	if (curr->sched_class != &fair_sched_class || se == pse)
		return;
	if (sched_feat(NEXT_BUDDY) && scale && !(wake_flags & WF_FORK)) {
		set_next_buddy(pse);
		next_buddy_marked = true;
	}
	/* Already going (a new task's wake-up may come here with it set). */
	if (rq->need_resched)
		return;
	/* A SCHED_IDLE runner gives way to anything that is not SCHED_IDLE. */
	if (curr->policy == SCHED_IDLE && p->policy != SCHED_IDLE)
		goto preempt;
	/* Batch and idle wakees never preempt. */
	if (p->policy != SCHED_NORMAL || !sched_feat(WAKEUP_PREEMPTION))
		return;
	update_curr(cfs_rq);
	if (wakeup_preempt_entity(se, pse) == 1) {
		if (!next_buddy_marked)
			set_next_buddy(pse);
		goto preempt;
	}
	return;

preempt:
	resched_curr(rq);
	/*
	 * Under load (scale), prefer the preempted task right after the wakee:
	 * its cache is still warm. Only if it stays queued.
	 */
	if (!se->on_rq)
		return;
	if (sched_feat(LAST_BUDDY) && scale)
		set_last_buddy(se);
}

/* ---------------------------------------------------------------- other events */

/*
 * sched_yield: do not pick curr next if another task is within a wake-up
 * granularity of the leftmost. Curr keeps its vruntime (no sprint to the
 * right, unlike the old compat_yield). The core calls schedule() after.
 */
static void yield_task_fair(struct rq *rq)
{
	struct task *curr = rq->curr;
	struct cfs_rq *cfs_rq = &rq->cfs;

	if (fair_eevdf()) {
		eevdf_yield_task(rq);
		return;
	}
	if (rq->nr_running == 1)
		return;
	clear_buddies(cfs_rq, &curr->se);
	if (curr->policy != SCHED_BATCH) {
		update_rq_clock(rq);
		update_curr(cfs_rq);
	}
	set_skip_buddy(&curr->se);
}

/*
 * A new task: it starts on the parent's queue (this CPU), from the
 * parent's vruntime (min_vruntime when the parent is not a fair task),
 * placed as initial; then made relative for whichever CPU it goes to.
 */
static void task_fork_fair(struct task *p)
{
	struct rq *rq;
	unsigned long flags;
	struct cfs_rq *cfs_rq;
	struct sched_entity *se = &p->se, *curr;

	if (fair_eevdf()) {
		eevdf_task_fork(p);
		return;
	}
	rq = this_rq();
	flags = spin_lock_irqsave(&rq->lock);
	cfs_rq = &rq->cfs;
	curr = cfs_rq->curr;
	update_rq_clock(rq);
	p->cpu = rq->cpu;
	se->on_rq = false;
	update_curr(cfs_rq);
	se->vruntime = curr ? curr->vruntime : cfs_rq->min_vruntime;
	place_entity(cfs_rq, se, true);
	se->vruntime -= cfs_rq->min_vruntime;
	spin_unlock_irqrestore(&rq->lock, flags);
}

/* Before the wake-up chooses a CPU: make vruntime relative to the queue p slept on. */
static void task_waking_fair(struct task *p)
{
	if (fair_eevdf()) {
		eevdf_task_waking(p);
		return;
	}
	p->se.vruntime -= READ_ONCE(task_rq(p)->cfs.min_vruntime);
}

/* By the protocol above p is on no queue and its vruntime is relative: check only. */
static void migrate_task_rq_fair(struct task *p, u32 new_cpu)
{
	if (sched_feat(SCHED_VERIFY) && p->se.on_rq)
		pr_err("sched: %s moved to cpu%u while queued on cpu%u\n", p->comm, new_cpu, p->cpu);
	pelt_migrate(p);
}

/*
 * p's nice changed. The core has already re-queued it with the new weight
 * (dequeue, set_load_weight, enqueue: vruntime kept relative across, so it
 * keeps its place). Here only the preemption rule of 3.8's set_user_nice:
 * a task that gained weight may now deserve the CPU, and a running one
 * that lost weight may have to give it up.
 */
static void prio_changed_fair(struct rq *rq, struct task *p, int old_nice)
{
	if (fair_eevdf()) {
		eevdf_prio_changed(rq, p, old_nice);
		return;
	}
	if (!p->se.on_rq)
		return;
	if (p->nice < old_nice || (p->nice > old_nice && task_running(rq, p)))
		resched_curr(rq);
}

/* ---------------------------------------------------------------- joining and leaving */

static void rq_init_fair(struct rq *rq)
{
	rq->cfs = (struct cfs_rq){ .tasks_timeline = RB_ROOT_CACHED };
	rq->cfs.min_vruntime = (u64)(-(1LL << 20)); /* wraps early: catches unsafe compares */
	list_init(&rq->cfs_tasks);
}

/*
 * p joins the class (its slot zeroed): on no queue, vruntime 0 relative to
 * whichever queue takes it, so an enqueue puts it at that min_vruntime. A
 * new task's task_fork places it properly before its first wake-up.
 */
static void task_init_fair(struct task *p)
{
	struct sched_entity *se = &p->se;

	RB_CLEAR_NODE(&se->run_node);
	list_init(&se->group_node);
	se->on_rq = false;
	se->vruntime = 0;
	pelt_task_init(p);
	eevdf_task_init(p); /* the slice: EEVDF's deadlines use it, CFS does not */
}

/*
 * p came from another class (sched_setclass). Queued, it is at its queue's
 * min_vruntime; running, it becomes the queue's current, out of the
 * timeline. Asleep, its vruntime is made absolute for the queue it slept
 * on, as a fair sleeper's is, so its wake-up makes it relative again.
 */
static void switched_to_fair(struct rq *rq, struct task *p)
{
	struct cfs_rq *cfs_rq = &rq->cfs;
	struct sched_entity *se = &p->se;

	if (fair_eevdf()) {
		eevdf_switched_to(rq, p);
		return;
	}
	if (!se->on_rq) {
		se->vruntime += cfs_rq->min_vruntime;
		return;
	}
	if (task_running(rq, p) && cfs_rq->curr != se)
		set_next_entity(cfs_rq, se);
}

/* p leaves the fair class: EEVDF must not leave it queued as a delayed dequeue. */
static void switched_from_fair(struct rq *rq, struct task *p)
{
	if (fair_eevdf())
		eevdf_switched_from(rq, p);
}

/* A queued fair task of rq, not running, allowed on cpu, among the first max of cfs_tasks. */
static struct task *waiter_for_fair(struct rq *rq, u32 cpu, u32 max)
{
	struct list_head *pos;
	u32 seen = 0;

	list_for_each (pos, &rq->cfs_tasks) {
		struct task *p = task_of(list_entry(pos, struct sched_entity, group_node));

		if (++seen > max)
			break;
		if (p != rq->curr && cpumask_test_cpu(cpu, &p->cpus_allowed))
			return p;
	}
	return NULL;
}

/* The balancer (balance.c): new-idle pulling and the tick's periodic pass. */
static void balance_fair(struct rq *rq, enum sched_balance_why why)
{
	if (sched_balance_modern) {
		balance_modern(rq, why); /* sched_balance=modern: balance_modern.c */
		return;
	}
	if (why == SCHED_BALANCE_NEWIDLE)
		idle_balance_fair(rq);
	else
		trigger_balance_fair(rq);
}

/* ---------------------------------------------------------------- checking */

/*
 * min_vruntime as each CPU's queue last showed it to fair_verify(); owner
 * tells a runqueue built anew (host tests) from one that went backwards.
 */
static struct {
	const struct cfs_rq *owner;
	u64 min_vruntime;
} verify_shadow[MAX_CPUS];

static int verify_fail(struct rq *rq, const char *what)
{
	pr_err("sched: cpu%u: CFS invariant broken: %s\n", rq->cpu, what);
	return -EINVAL;
}

int fair_verify(struct rq *rq)
{
	struct cfs_rq *cfs_rq = &rq->cfs;
	struct sched_entity *curr = cfs_rq->curr;
	struct sched_entity *buddies[3] = { cfs_rq->next, cfs_rq->last, cfs_rq->skip };
	unsigned long load = 0;
	u32 queued = 0, listed = 0;
	struct list_head *pos;
	int err = 0, rb;

	if (fair_eevdf())
		return eevdf_verify(rq);
	rb = rb_verify_cached(&cfs_rq->tasks_timeline, entity_less);
	if (rb) {
		pr_err("sched: cpu%u: CFS timeline: rb_verify error %d\n", rq->cpu, rb);
		sched_verify_count(false);
		return -EINVAL; /* walking a broken tree is not safe */
	}
	for (struct rb_node *n = rb_first_cached(&cfs_rq->tasks_timeline); n; n = rb_next(n)) {
		struct sched_entity *se = timeline_entity(n);

		if (se == curr)
			err = verify_fail(rq, "the running task is in the timeline");
		if (!se->on_rq)
			err = verify_fail(rq, "a task in the timeline is not marked queued");
		if (task_cpu(task_of(se)) != rq->cpu)
			err = verify_fail(rq, "a task in the timeline belongs to another CPU");
		load += se_load(se)->weight;
		queued++;
	}
	if (curr && curr->on_rq) {
		load += se_load(curr)->weight;
		queued++;
	}
	if (queued != cfs_rq->nr_running)
		err = verify_fail(rq, "nr_running is not the number of queued tasks");
	if (load != cfs_rq->load.weight || load != rq->load.weight)
		err = verify_fail(rq, "queue load is not the sum of the queued weights");
	list_for_each (pos, &rq->cfs_tasks)
		if (++listed > queued)
			break;
	if (listed != queued)
		err = verify_fail(rq, "cfs_tasks does not list the queued tasks");
	for (int i = 0; i < 3; i++)
		if (buddies[i] && (!buddies[i]->on_rq || task_cpu(task_of(buddies[i])) != rq->cpu))
			err = verify_fail(rq, "a buddy is not queued here");
	if (rq->cpu < MAX_CPUS) {
		if (verify_shadow[rq->cpu].owner == cfs_rq &&
		    vruntime_before(cfs_rq->min_vruntime, verify_shadow[rq->cpu].min_vruntime))
			err = verify_fail(rq, "min_vruntime went backwards");
		verify_shadow[rq->cpu].owner = cfs_rq;
		verify_shadow[rq->cpu].min_vruntime = cfs_rq->min_vruntime;
	}
	sched_verify_count(err == 0);
	return err;
}

/* ---------------------------------------------------------------- watchdog */

#define FAIR_DUMP_MAX 32

/* The stall watchdog's view of this CPU's CFS queue: curr, then the timeline leftmost first. */
static void dump_fair(struct rq *rq)
{
	struct cfs_rq *cfs_rq = &rq->cfs;
	struct rb_node *n = rb_first_cached(&cfs_rq->tasks_timeline);
	u32 shown = 0;

	pr_emerg("fair: cpu%u: nr_running %u, load %lu, min_vruntime %lld\n", rq->cpu,
		 cfs_rq->nr_running, cfs_rq->load.weight, (long long)cfs_rq->min_vruntime);
	if (cfs_rq->curr)
		pr_emerg("fair:   running %s:%d nice %d vruntime min%+lld\n",
			 task_of(cfs_rq->curr)->comm, task_of(cfs_rq->curr)->pid,
			 task_of(cfs_rq->curr)->nice,
			 (long long)(cfs_rq->curr->vruntime - cfs_rq->min_vruntime));
	for (; n && shown < FAIR_DUMP_MAX; n = rb_next(n), shown++) {
		struct sched_entity *se = timeline_entity(n);

		pr_emerg("fair:   queued %s:%d nice %d vruntime min%+lld\n", task_of(se)->comm,
			 task_of(se)->pid, task_of(se)->nice,
			 (long long)(se->vruntime - cfs_rq->min_vruntime));
	}
	if (n)
		pr_emerg("fair:   ... (listing cut at %u)\n", FAIR_DUMP_MAX);
}

void fair_adopt_task(struct rq *rq, struct task *p)
{
	struct cfs_rq *cfs_rq = &rq->cfs;
	struct sched_entity *se = &p->se;

	if (fair_eevdf()) {
		eevdf_adopt_task(rq, p);
		return;
	}
	/* The slot held the failed class's state: start fair's afresh (run time is the core's). */
	memset(p->class_priv, 0, sizeof(p->class_priv));
	task_init_fair(p);
	if (!p->on_rq) {
		se->vruntime = cfs_rq->min_vruntime; /* asleep: absolute, as task_waking_fair expects */
		return;
	}
	/* relative: enqueue_entity adds min_vruntime */
	if (task_running(rq, p))
		cfs_rq->curr = se; /* running: put_prev_task_fair will find it as fair's current */
	enqueue_entity(cfs_rq, se, 0);
	resched_curr(rq);
}

/* For sched_verify: the tasks in rq's CFS queue, its current one included. */
static u32 nr_queued_fair(const struct rq *rq)
{
	return rq->cfs.nr_running;
}

const struct sched_class fair_sched_class = {
	.name = "fair",
	.rank = 100,
	.rq_init = rq_init_fair,
	.update_curr = update_curr_fair,
	.enqueue_task = enqueue_task_fair,
	.dequeue_task = dequeue_task_fair,
	.yield_task = yield_task_fair,
	.check_preempt_curr = check_preempt_wakeup,
	.pick_next_task = pick_next_task_fair,
	.put_prev_task = put_prev_task_fair,
	.select_task_rq = select_task_rq_fair, /* select.c: stock or sbm, by sched_select= */
	.task_tick = task_tick_fair,
	.task_fork = task_fork_fair,
	.task_waking = task_waking_fair,
	.migrate_task_rq = migrate_task_rq_fair,
	.prio_changed = prio_changed_fair,
	.task_init = task_init_fair,
	.switched_to = switched_to_fair,
	.switched_from = switched_from_fair,
	.balance = balance_fair,
	.waiter_for = waiter_for_fair,
	.nr_queued = nr_queued_fair,
	.dump = dump_fair,
};
SCHED_CLASS_REGISTER(fair_sched_class);
