/*
 * The fair class's second mode, sched_fair=eevdf: Linux 6.12's Earliest
 * Eligible Virtual Deadline First on the same runqueue, entity and
 * timeline as CFS (fair.c), which hands its ordering, placement and
 * preemption operations over to the functions here. docs/eevdf.md explains
 * the design; this is the arithmetic.
 *
 * Each queue has a zero-lag point V, the weighted average of its entities'
 * vruntimes (curr included). An entity's lag is w * (V - v): what it is
 * owed (> 0) or has taken beyond its share (< 0). It is eligible while its
 * lag is not negative, v <= V. Each entity also has a virtual deadline,
 * d = v + slice / w (calc_delta_fair), renewed whenever v passes it. The
 * pick is the eligible entity with the earliest deadline.
 *
 * The timeline is ordered by deadline and augmented with each subtree's
 * smallest vruntime, so one descent finds that entity: a subtree whose
 * minimum is not eligible holds no eligible entity.
 *
 * V is kept without a division per event: with keys k_i = v_i - min_vruntime
 * (small, so the products do not overflow), the queue keeps
 *	avg_vruntime = sum k_i * w_i,	avg_load = sum w_i
 * over the entities in the timeline; curr is added when V is asked for.
 * When min_vruntime moves up by d every key drops by d, so the sum drops by
 * avg_load * d. V = min_vruntime + avg_vruntime / avg_load, rounded down;
 * eligibility compares avg_vruntime >= k * avg_load and divides nothing.
 *
 * Locking: rq->lock held everywhere, as for fair.c's operations.
 */
#include "lib/errno.h"
#include "lib/string.h"
#include "printk.h"
#include "sched/fair_internal.h"
#include "sched/pelt.h"

/*
 * Linux's TICK_NSEC for the lag limit: Fulcrum's tick period is a boot
 * option of the timer, which the scheduler does not see, so the limit uses
 * the default tick, 4 ms (hz=250, Debian's CONFIG_HZ_250).
 */
#define EEVDF_TICK_NSEC 4000000ULL

/* sched_setattr's sched_runtime bounds for a custom slice. */
#define EEVDF_SLICE_MIN 100000ULL
#define EEVDF_SLICE_MAX 100000000ULL

static inline bool deadline_before(const struct sched_entity *a, const struct sched_entity *b)
{
	return (s64)(a->deadline - b->deadline) < 0;
}

static bool deadline_less(const struct rb_node *a, const struct rb_node *b)
{
	return deadline_before(timeline_entity(a), timeline_entity(b));
}

/* The augmentation: the smallest vruntime of the subtree under node. */
static bool min_vruntime_update(struct rb_node *node)
{
	struct sched_entity *se = timeline_entity(node);
	u64 min = se->vruntime;

	if (node->left)
		min = vruntime_min(min, timeline_entity(node->left)->min_vruntime);
	if (node->right)
		min = vruntime_min(min, timeline_entity(node->right)->min_vruntime);
	if (min == se->min_vruntime)
		return false;
	se->min_vruntime = min;
	return true;
}

static const struct rb_augment min_vruntime_cb = { .update = min_vruntime_update };

/* ---------------------------------------------------------------- the average */

static inline s64 entity_key(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	return (s64)(se->vruntime - cfs_rq->min_vruntime);
}

static void avg_vruntime_add(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	cfs_rq->avg_vruntime += entity_key(cfs_rq, se) * (s64)se->weight;
	cfs_rq->avg_load += se->weight;
}

static void avg_vruntime_sub(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	cfs_rq->avg_vruntime -= entity_key(cfs_rq, se) * (s64)se->weight;
	cfs_rq->avg_load -= se->weight;
}

/* The sums with curr counted in, as every question about V needs them. */
static void avg_with_curr(struct cfs_rq *cfs_rq, s64 *avg, s64 *load)
{
	struct sched_entity *curr = cfs_rq->curr;

	*avg = cfs_rq->avg_vruntime;
	*load = (s64)cfs_rq->avg_load;
	if (curr && curr->on_rq) {
		*avg += entity_key(cfs_rq, curr) * (s64)curr->weight;
		*load += (s64)curr->weight;
	}
}

u64 eevdf_avg_vruntime(struct cfs_rq *cfs_rq)
{
	s64 avg, load;

	avg_with_curr(cfs_rq, &avg, &load);
	if (load) {
		/* Round towards minus infinity, so that the entity at V is eligible. */
		if (avg < 0)
			avg -= load - 1;
		avg /= load;
	}
	return cfs_rq->min_vruntime + (u64)avg;
}

/* v <= V, as (v - min_vruntime) * load <= avg_vruntime: no division, no rounding. */
static bool vruntime_eligible(struct cfs_rq *cfs_rq, u64 vruntime)
{
	s64 avg, load;

	/* LAB 6 BEGIN eligible */
	avg_with_curr(cfs_rq, &avg, &load);
	return avg >= (s64)(vruntime - cfs_rq->min_vruntime) * load;
	/* LAB 6 SKELETON
	TODO: v <= V without dividing: compare the key of vruntime with the sums, curr included.
	(void)avg;
	(void)load;
	(void)vruntime;
	return true;
	   LAB 6 END */
}

bool eevdf_entity_eligible(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	return vruntime_eligible(cfs_rq, se->vruntime);
}

/*
 * min_vruntime is only the origin of the keys now, but it still follows the
 * smallest vruntime queued (curr's or the timeline's, the root's augmented
 * minimum) and never goes back; each step up shifts the key sum.
 */
static void update_min_vruntime(struct cfs_rq *cfs_rq)
{
	struct sched_entity *curr = cfs_rq->curr;
	struct sched_entity *root = timeline_entity(cfs_rq->tasks_timeline.root.node);
	u64 vruntime = cfs_rq->min_vruntime;
	s64 delta;

	if (curr && !curr->on_rq)
		curr = NULL;
	if (curr)
		vruntime = curr->vruntime;
	if (root)
		vruntime = curr ? vruntime_min(vruntime, root->min_vruntime) : root->min_vruntime;
	delta = (s64)(vruntime - cfs_rq->min_vruntime);
	if (delta > 0) {
		cfs_rq->avg_vruntime -= (s64)cfs_rq->avg_load * delta;
		cfs_rq->min_vruntime = vruntime;
	}
}

/*
 * se's virtual lag V - v as it leaves, clamped to what two slices (at least
 * one tick) are worth in its virtual time: a task cannot bank more than
 * that, nor owe more.
 */
static void update_entity_lag(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	u64 span = MAX(2 * se->slice, EEVDF_TICK_NSEC);
	s64 limit = (s64)calc_delta_fair(span, se);
	s64 vlag = (s64)(eevdf_avg_vruntime(cfs_rq) - se->vruntime);

	/* LAB 6 BEGIN lag */
	se->vlag = vlag < -limit ? -limit : vlag > limit ? limit : vlag;
	/* LAB 6 SKELETON
	TODO: record V - v as se's lag, clamped to +-limit.
	(void)vlag;
	(void)limit;
	se->vlag = 0;
	   LAB 6 END */
}

/* ---------------------------------------------------------------- the timeline */

static void timeline_add(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	avg_vruntime_add(cfs_rq, se);
	se->min_vruntime = se->vruntime;
	rb_add_augmented_cached(&se->run_node, &cfs_rq->tasks_timeline, deadline_less,
				&min_vruntime_cb);
}

static void timeline_del(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	rb_erase_augmented_cached(&se->run_node, &cfs_rq->tasks_timeline, &min_vruntime_cb);
	avg_vruntime_sub(cfs_rq, se);
}

static void account_enqueue(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	struct rq *rq = rq_of(cfs_rq);

	se->weight = se_load(se)->weight;
	update_load_add(&cfs_rq->load, se->weight);
	update_load_add(&rq->load, se->weight);
	list_add(&se->group_node, &rq->cfs_tasks);
	cfs_rq->nr_running++;
}

/* Leaving the queue's sums; a delayed entity already left nr_running and cfs_tasks. */
static void account_dequeue(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	struct rq *rq = rq_of(cfs_rq);

	update_load_sub(&cfs_rq->load, se->weight);
	update_load_sub(&rq->load, se->weight);
	if (se->sched_delayed) {
		cfs_rq->nr_delayed--;
		return;
	}
	list_del(&se->group_node);
	cfs_rq->nr_running--;
}

/*
 * A new deadline once vruntime has reached the old one: the request is
 * used up. True if so, and then curr should make way.
 */
static bool update_deadline(struct sched_entity *se)
{
	/* LAB 6 BEGIN deadline */
	if (vruntime_before(se->vruntime, se->deadline))
		return false;
	if (!se->custom_slice)
		se->slice = eevdf_base_slice();
	se->deadline = se->vruntime + calc_delta_fair(se->slice, se);
	return true;
	/* LAB 6 SKELETON
	TODO: once vruntime reaches the deadline, renew it a slice (in se's virtual time) on; say so.
	se->deadline = se->vruntime;
	return true;
	   LAB 6 END */
}

/*
 * RUN_TO_PARITY's mark: when an entity is picked its deadline is copied into
 * vlag (unused while it runs). Protection lasts while the two agree, that
 * is until the entity gets a new deadline.
 */
static inline bool slice_protected(const struct sched_entity *se)
{
	return se->vlag == (s64)se->deadline;
}

/*
 * PREEMPT_SHORT's tick-side half: curr's protected slice is over and it is
 * no longer eligible, so the shorter-slice tasks waiting should get their turn.
 */
static bool did_preempt_short(struct cfs_rq *cfs_rq, struct sched_entity *curr)
{
	if (!sched_feat(PREEMPT_SHORT))
		return false;
	if (slice_protected(curr))
		return false;
	return !eevdf_entity_eligible(cfs_rq, curr);
}

void eevdf_update_curr(struct cfs_rq *cfs_rq)
{
	struct sched_entity *curr = cfs_rq->curr;
	bool resched;
	u64 delta;

	if (!curr)
		return;
	delta = update_curr_common(rq_of(cfs_rq));
	if (!delta)
		return;
	curr->vruntime += calc_delta_fair(delta, curr);
	resched = update_deadline(curr);
	update_min_vruntime(cfs_rq);
	if (cfs_rq->nr_running + cfs_rq->nr_delayed <= 1)
		return;
	if (resched || did_preempt_short(cfs_rq, curr)) {
		resched_curr(rq_of(cfs_rq));
		clear_buddies(cfs_rq, curr);
	}
}

/* ---------------------------------------------------------------- placement */

/*
 * Where se enters: at V minus its lag, and its deadline a slice further
 * (half a slice for a new task with PLACE_DEADLINE_INITIAL), or where its
 * relative deadline says.
 *
 * The lag is inflated first: adding se (weight w) to a queue of load W
 * moves V towards se by lag * w / (W + w), so placing it at lag * (W + w) / W
 * leaves it exactly lag behind the V that results.
 */
static void place_entity(struct cfs_rq *cfs_rq, struct sched_entity *se, bool initial)
{
	u64 vruntime = eevdf_avg_vruntime(cfs_rq), vslice;
	s64 lag = 0, avg, load;

	if (!se->custom_slice)
		se->slice = eevdf_base_slice();
	vslice = calc_delta_fair(se->slice, se);
	avg_with_curr(cfs_rq, &avg, &load);
	/* LAB 6 BEGIN place */
	if (sched_feat(PLACE_LAG) && load && se->vlag) {
		lag = se->vlag * (load + (s64)se_load(se)->weight);
		lag /= load;
	}
	/* LAB 6 SKELETON
	TODO: with PLACE_LAG, the lag to place se by: its vlag, inflated for the V it will move.
	(void)avg;
	   LAB 6 END */
	se->vruntime = vruntime - (u64)lag;
	if (se->rel_deadline) {
		se->deadline += se->vruntime;
		se->rel_deadline = false;
		return;
	}
	if (sched_feat(PLACE_DEADLINE_INITIAL) && initial)
		vslice /= 2;
	se->deadline = se->vruntime + vslice;
}

/*
 * A weight change while off the queue (nice, or setattr): the real lag
 * w * vlag is what is kept, so the virtual one scales by old / new, and so
 * does a relative deadline.
 */
static void reweight_lag(struct sched_entity *se)
{
	s64 old = (s64)se->weight, new = (s64)se_load(se)->weight;

	if (!old || old == new)
		return;
	se->vlag = se->vlag * old / new;
	if (se->rel_deadline)
		se->deadline = (u64)((s64)se->deadline * old / new);
}

/*
 * PELT's hooks (pelt.h) sit where CFS's do: the enqueue before the entity
 * counts as queued, the dequeue while it still does, set_next and put_prev
 * around a run. A delayed dequeue keeps the entity queued for PELT too,
 * as in Linux 6.12, until it really leaves.
 */
static void enqueue_entity(struct cfs_rq *cfs_rq, struct sched_entity *se, int flags)
{
	bool curr = cfs_rq->curr == se, initial = se->place_initial;

	se->place_initial = false;
	reweight_lag(se);
	/* curr is not in the sums yet: place it before update_curr() moves V. */
	if (curr)
		place_entity(cfs_rq, se, initial);
	eevdf_update_curr(cfs_rq);
	if (!curr)
		place_entity(cfs_rq, se, initial);
	pelt_enqueue(rq_of(cfs_rq), task_of(se), flags);
	account_enqueue(cfs_rq, se);
	if (!curr)
		timeline_add(cfs_rq, se);
	se->on_rq = true;
	update_min_vruntime(cfs_rq);
}

void eevdf_enqueue_task(struct rq *rq, struct task *p, int flags)
{
	/* Every enqueue is placed by lag: nothing is relative to min_vruntime. */
	if (p->se.on_rq) {
		pr_err("sched: %s enqueued twice on cpu%u%s\n", p->comm, rq->cpu,
		       p->se.sched_delayed ? " (delayed dequeue)" : "");
		return;
	}
	enqueue_entity(&rq->cfs, &p->se, flags);
	if (sched_feat(SCHED_VERIFY))
		eevdf_verify(rq);
}

/* The last step out of the queue, for a real dequeue and at the end of a delayed one. */
static void dequeue_entity(struct cfs_rq *cfs_rq, struct sched_entity *se, bool sleep)
{
	update_entity_lag(cfs_rq, se);
	if (se->sched_delayed && sched_feat(DELAY_ZERO) && se->vlag > 0)
		se->vlag = 0;
	if (sched_feat(PLACE_REL_DEADLINE) && !sleep) {
		se->deadline -= se->vruntime;
		se->rel_deadline = true;
	}
	if (se != cfs_rq->curr)
		timeline_del(cfs_rq, se);
	account_dequeue(cfs_rq, se);
	se->sched_delayed = false;
	se->on_rq = false;
	update_min_vruntime(cfs_rq);
}

/*
 * DELAY_DEQUEUE: a task that goes to sleep while not eligible (it has
 * taken more than its share) would come back with that negative lag; a
 * short sleep would then cost it nothing if it left now and the lag were
 * forgotten, or cost it a lot if kept. Instead it stays in the timeline,
 * weight and all, as if still competing, and leaves only when it would be
 * picked, by which time it is eligible: its debt is paid (and with
 * DELAY_ZERO any credit gained meanwhile dropped). It is out of nr_running
 * and of cfs_tasks (the balancer's list) meanwhile: for the core it sleeps.
 */
static void finish_delayed_dequeue(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	eevdf_update_curr(cfs_rq);
	pelt_dequeue(rq_of(cfs_rq), task_of(se), DEQUEUE_SLEEP);
	dequeue_entity(cfs_rq, se, true);
}

void eevdf_dequeue_task(struct rq *rq, struct task *p, int flags)
{
	struct cfs_rq *cfs_rq = &rq->cfs;
	struct sched_entity *se = &p->se;
	bool sleep = flags & DEQUEUE_SLEEP;

	if (!se->on_rq || se->sched_delayed) {
		pr_err("sched: %s dequeued but not queued on cpu%u\n", p->comm, rq->cpu);
		return;
	}
	eevdf_update_curr(cfs_rq);
	pelt_dequeue(rq, p, flags);
	clear_buddies(cfs_rq, se);
	/* A dying task must not stay queued: it will never be woken to leave. */
	if (sched_feat(DELAY_DEQUEUE) && sleep && p->state != TASK_DEAD &&
	    !eevdf_entity_eligible(cfs_rq, se)) {
		se->sched_delayed = true;
		list_del(&se->group_node);
		cfs_rq->nr_running--;
		cfs_rq->nr_delayed++;
	} else {
		dequeue_entity(cfs_rq, se, sleep);
	}
	if (sched_feat(SCHED_VERIFY))
		eevdf_verify(rq);
}

/* ---------------------------------------------------------------- picking */

/*
 * The eligible entity with the earliest deadline; curr (running, not in
 * the timeline) competes too. With protect and RUN_TO_PARITY an eligible
 * curr keeps the CPU until its slice is used.
 */
static struct sched_entity *pick_eevdf(struct cfs_rq *cfs_rq, bool protect)
{
	struct rb_node *node = cfs_rq->tasks_timeline.root.node;
	struct sched_entity *left = timeline_entity(rb_first_cached(&cfs_rq->tasks_timeline));
	struct sched_entity *curr = cfs_rq->curr, *best = NULL;

	if (cfs_rq->nr_running + cfs_rq->nr_delayed == 1)
		return curr && curr->on_rq ? curr : left;
	if (curr && (!curr->on_rq || !eevdf_entity_eligible(cfs_rq, curr)))
		curr = NULL;
	if (sched_feat(RUN_TO_PARITY) && protect && curr && slice_protected(curr))
		return curr;

	/* LAB 6 BEGIN pick */
	if (left && eevdf_entity_eligible(cfs_rq, left)) {
		best = left;
	} else {
		/*
		 * Deadline order: go left while the left subtree holds an
		 * eligible entity (its minimum vruntime is); otherwise this
		 * node if eligible, else the right subtree.
		 */
		while (node) {
			struct rb_node *l = node->left;

			if (l && vruntime_eligible(cfs_rq, timeline_entity(l)->min_vruntime)) {
				node = l;
				continue;
			}
			if (eevdf_entity_eligible(cfs_rq, timeline_entity(node))) {
				best = timeline_entity(node);
				break;
			}
			node = node->right;
		}
	}
	/* LAB 6 SKELETON
	TODO: best = the eligible entity of earliest deadline in the timeline, in one descent.
	(void)node;
	best = left;
	   LAB 6 END */
	if (!best || (curr && deadline_before(curr, best)))
		best = curr;
	/* Some entity is always at or before the average; keep going if rounding says none. */
	return best ? best : left;
}

static void set_next_entity(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	if (se->on_rq)
		timeline_del(cfs_rq, se);
	pelt_update(rq_of(cfs_rq), task_of(se));
	cfs_rq->curr = se;
	se->vlag = (s64)se->deadline; /* RUN_TO_PARITY's mark, see slice_protected() */
}

static int verify_fail(struct rq *rq, const char *what)
{
	pr_err("sched: cpu%u: EEVDF invariant broken: %s\n", rq->cpu, what);
	return -EINVAL;
}

struct task *eevdf_pick_next_task(struct rq *rq)
{
	struct cfs_rq *cfs_rq = &rq->cfs;
	struct sched_entity *se;

	for (;;) {
		if (!cfs_rq->nr_running && !cfs_rq->nr_delayed)
			return NULL;
		se = pick_eevdf(cfs_rq, true);
		if (!se->sched_delayed)
			break;
		/* Its turn has come, so its lag is paid: now it really leaves. */
		finish_delayed_dequeue(cfs_rq, se);
	}
	if (sched_feat(SCHED_VERIFY) && cfs_rq->nr_running > 1 && !eevdf_entity_eligible(cfs_rq, se)) {
		verify_fail(rq, "the picked task is not eligible");
		sched_verify_count(false);
	}
	set_next_entity(cfs_rq, se);
	if (sched_feat(SCHED_VERIFY))
		eevdf_verify(rq);
	return task_of(se);
}

/* prev stops running: charged and, if still queued (delayed ones too), back in the timeline. */
void eevdf_put_prev_task(struct rq *rq, struct task *prev)
{
	struct cfs_rq *cfs_rq = &rq->cfs;
	struct sched_entity *se = &prev->se;

	if (se->on_rq) {
		eevdf_update_curr(cfs_rq);
		timeline_add(cfs_rq, se);
	}
	pelt_update(rq, prev);
	cfs_rq->curr = NULL;
}

/* ---------------------------------------------------------------- preemption */

/* No tick-side slice check of its own: update_curr() asks when the deadline passes. */
void eevdf_task_tick(struct rq *rq, struct task *curr)
{
	(void)curr;
	eevdf_update_curr(&rq->cfs);
}

/*
 * p was just queued on rq: preempt rq->curr if p is now the pick. A wakee
 * with a shorter slice (PREEMPT_SHORT) does not have to wait for curr's
 * protected slice to end.
 */
void eevdf_check_preempt(struct rq *rq, struct task *p, int wake_flags)
{
	struct task *curr = rq->curr;
	struct sched_entity *se = &curr->se, *pse = &p->se;
	struct cfs_rq *cfs_rq = &rq->cfs;
	bool preempt_short;

	(void)wake_flags;
	if (curr == rq->idle) {
		resched_curr(rq);
		return;
	}
	if (curr->sched_class != &fair_sched_class || se == pse || rq->need_resched)
		return;
	if (!sched_feat(WAKEUP_PREEMPTION))
		return;
	if (curr->policy == SCHED_IDLE && p->policy != SCHED_IDLE)
		goto preempt;
	if (p->policy != SCHED_NORMAL)
		return;
	eevdf_update_curr(cfs_rq);
	preempt_short = sched_feat(PREEMPT_SHORT) && pse->slice < se->slice;
	if (pick_eevdf(cfs_rq, !preempt_short) == pse)
		goto preempt;
	return;
preempt:
	resched_curr(rq);
}

/* ---------------------------------------------------------------- other events */

/* sched_yield: give up the rest of this request, by pushing the deadline a slice on. */
void eevdf_yield_task(struct rq *rq)
{
	struct cfs_rq *cfs_rq = &rq->cfs;
	struct sched_entity *se = &rq->curr->se;

	if (rq->nr_running == 1)
		return;
	clear_buddies(cfs_rq, se);
	update_rq_clock(rq);
	eevdf_update_curr(cfs_rq);
	se->deadline += calc_delta_fair(se->slice, se);
}

/* A new task: no lag, and its first enqueue (wherever it lands) is an initial placement. */
void eevdf_task_fork(struct task *p)
{
	struct sched_entity *se = &p->se;

	se->on_rq = false;
	se->vlag = 0;
	se->rel_deadline = false;
	se->place_initial = true;
}

/*
 * Before a wake-up chooses p's CPU: a delayed dequeue still pending on the
 * queue p slept on ends now (pi_lock held; that queue's lock taken here).
 * Linux requeues such a task where it is; here it leaves with the lag the
 * delay got it to, then wakes like any sleeper, so that the core's wake-up
 * (which thinks p is off every queue) stays as it is.
 */
void eevdf_task_waking(struct task *p)
{
	struct rq *rq = task_rq(p);

	if (!READ_ONCE(p->se.sched_delayed))
		return;
	spin_lock(&rq->lock);
	if (p->se.sched_delayed) {
		update_rq_clock(rq);
		finish_delayed_dequeue(&rq->cfs, &p->se);
	}
	spin_unlock(&rq->lock);
}

/* As Linux 6.12: a running task that lost weight may have to go; a waiting one may now preempt. */
void eevdf_prio_changed(struct rq *rq, struct task *p, int old_nice)
{
	if (!p->se.on_rq)
		return;
	if (task_running(rq, p)) {
		if (p->nice > old_nice)
			resched_curr(rq);
	} else {
		eevdf_check_preempt(rq, p, 0);
	}
}

void eevdf_switched_from(struct rq *rq, struct task *p)
{
	if (p->se.sched_delayed)
		finish_delayed_dequeue(&rq->cfs, &p->se);
}

/* p joined the class (placed by its enqueue if queued); running, it becomes curr. */
void eevdf_switched_to(struct rq *rq, struct task *p)
{
	struct cfs_rq *cfs_rq = &rq->cfs;
	struct sched_entity *se = &p->se;

	if (se->on_rq && task_running(rq, p) && cfs_rq->curr != se)
		set_next_entity(cfs_rq, se);
}

/* A task joins the class: the base slice, no lag. */
void eevdf_task_init(struct task *p)
{
	p->se.slice = eevdf_base_slice();
}

/* The stall watchdog's fallback (fair_adopt_task): p starts afresh at V. */
void eevdf_adopt_task(struct rq *rq, struct task *p)
{
	struct cfs_rq *cfs_rq = &rq->cfs;
	struct sched_entity *se = &p->se;

	memset(p->class_priv, 0, sizeof(p->class_priv));
	RB_CLEAR_NODE(&se->run_node);
	list_init(&se->group_node);
	eevdf_task_init(p);
	if (!p->on_rq)
		return;
	if (task_running(rq, p))
		cfs_rq->curr = se;
	enqueue_entity(cfs_rq, se, 0);
	resched_curr(rq);
}

u64 sched_set_slice(struct task *p, u64 runtime)
{
	unsigned long flags = spin_lock_irqsave(&p->pi_lock);
	struct sched_entity *se = &p->se;
	struct rq *rq;

	/* A queued task's CPU may change under pi_lock alone (the balancer): re-check. */
	for (;;) {
		rq = task_rq(p);
		spin_lock(&rq->lock);
		if (rq == task_rq(p))
			break;
		spin_unlock(&rq->lock);
	}
	if (runtime) {
		se->custom_slice = true;
		se->slice = runtime < EEVDF_SLICE_MIN ? EEVDF_SLICE_MIN :
			    runtime > EEVDF_SLICE_MAX ? EEVDF_SLICE_MAX :
							runtime;
	} else {
		se->custom_slice = false;
		se->slice = eevdf_base_slice();
	}
	runtime = se->slice;
	spin_unlock(&rq->lock);
	spin_unlock_irqrestore(&p->pi_lock, flags);
	return runtime;
}

/* ---------------------------------------------------------------- checking */

/*
 * Everything the fast paths keep incrementally, recomputed from the
 * entities: the timeline is a valid tree in deadline order with every
 * node's augmented minimum right; the load, nr_running, nr_delayed and
 * cfs_tasks match the entities; the key sums match, and so V is their
 * weighted mean.
 */
int eevdf_verify(struct rq *rq)
{
	struct cfs_rq *cfs_rq = &rq->cfs;
	struct sched_entity *curr = cfs_rq->curr;
	unsigned long load = 0;
	u32 running = 0, delayed = 0, listed = 0;
	s64 sum = 0, weights = 0;
	struct list_head *pos;
	int err = 0, rb;

	rb = rb_verify_cached(&cfs_rq->tasks_timeline, deadline_less);
	if (rb) {
		pr_err("sched: cpu%u: EEVDF timeline: rb_verify error %d\n", rq->cpu, rb);
		sched_verify_count(false);
		return -EINVAL;
	}
	for (struct rb_node *n = rb_first_cached(&cfs_rq->tasks_timeline); n; n = rb_next(n)) {
		struct sched_entity *se = timeline_entity(n);
		u64 min = se->vruntime;

		if (n->left)
			min = vruntime_min(min, timeline_entity(n->left)->min_vruntime);
		if (n->right)
			min = vruntime_min(min, timeline_entity(n->right)->min_vruntime);
		if (min != se->min_vruntime)
			err = verify_fail(rq, "a node's augmented min_vruntime is wrong");
		if (se == curr)
			err = verify_fail(rq, "the running task is in the timeline");
		if (!se->on_rq)
			err = verify_fail(rq, "a task in the timeline is not marked queued");
		if (task_cpu(task_of(se)) != rq->cpu)
			err = verify_fail(rq, "a task in the timeline belongs to another CPU");
		sum += entity_key(cfs_rq, se) * (s64)se->weight;
		weights += (s64)se->weight;
		load += se->weight;
		if (se->sched_delayed)
			delayed++;
		else
			running++;
	}
	if (sum != cfs_rq->avg_vruntime || weights != (s64)cfs_rq->avg_load)
		err = verify_fail(rq, "avg_vruntime is not the weighted sum of the queue");
	if (curr && curr->on_rq) {
		load += curr->weight;
		if (curr->sched_delayed)
			delayed++;
		else
			running++;
		sum += entity_key(cfs_rq, curr) * (s64)curr->weight;
		weights += (s64)curr->weight;
	}
	if (weights) {
		s64 mean = sum < 0 ? (sum - (weights - 1)) / weights : sum / weights;

		if (cfs_rq->min_vruntime + (u64)mean != eevdf_avg_vruntime(cfs_rq))
			err = verify_fail(rq, "V is not the weighted mean vruntime of the queue");
	}
	if (running != cfs_rq->nr_running || delayed != cfs_rq->nr_delayed)
		err = verify_fail(rq, "nr_running / nr_delayed do not count the queued tasks");
	if (load != cfs_rq->load.weight || load != rq->load.weight)
		err = verify_fail(rq, "queue load is not the sum of the queued weights");
	list_for_each (pos, &rq->cfs_tasks)
		if (++listed > running)
			break;
	if (listed != running)
		err = verify_fail(rq, "cfs_tasks does not list the runnable tasks");
	sched_verify_count(err == 0);
	return err;
}
