/*
 * Per-entity load tracking as Linux has computed it since 5.7: every fair
 * task and every CPU's fair queue keep decayed sums of their recent past,
 * which the modern load balancer (balance_modern.c) reads. fair.c calls
 * the hooks of pelt.h from a handful of single lines; nothing else here
 * touches the fair class's own state.
 *
 * The signal. Time is cut into periods of 1024 units of 1024 ns (about
 * 1 ms). A sum adds, per period, the units during which the entity was
 * runnable (or running), and every period the whole sum is multiplied by
 * y, where y^32 = 1/2. An update that starts inside period 0 (with
 * period_contrib units of it already counted), crosses p boundaries and
 * ends d3 units into the current period splits the elapsed time into
 *
 *      d1 (rest of the old period) | p - 1 full periods | d3
 *
 * and adds  d1 * y^p  +  1024 * (y + ... + y^(p-1))  +  d3,
 * the middle term being LOAD_AVG_MAX - LOAD_AVG_MAX * y^p - 1024 (the
 * infinite series minus its head and tail), after decaying the old sum by
 * y^p. An average is the sum divided by the largest sum reachable at this
 * point of the period, LOAD_AVG_MAX - 1024 + period_contrib.
 *
 * Attaching: a task's sums move with it. Dequeued to move (the balancer),
 * it is taken out of the old queue's sums under that queue's lock; woken
 * on another CPU, it is brought to the old queue's last update time and
 * left as "removed", which the old queue subtracts at its next update.
 * At its next enqueue it is added to the new queue's sums, aligned with
 * that queue's period. A sleeping task stays in its queue's sums (its
 * blocked load decays there), as in Linux.
 *
 * Not modelled: frequency and capacity invariance (every CPU runs at full
 * speed: the PELT clock is rq->clock_task), util_est, group entities.
 */
#include "sched/pelt.h"

#include "sched/sched.h"

bool sched_pelt_enabled;

/* floor(2^32 * y^n), y = 2^(-1/32); n = 0 saturates at 2^32 - 1. */
const u32 runnable_avg_yN_inv[LOAD_AVG_PERIOD] = {
	0xffffffff, 0xfa83b2db, 0xf5257d15, 0xefe4b99b, 0xeac0c6e7, 0xe5b906e7, 0xe0ccdeec,
	0xdbfbb797, 0xd744fcca, 0xd2a81d91, 0xce248c15, 0xc9b9bd86, 0xc5672a11, 0xc12c4cca,
	0xbd08a39f, 0xb8fbaf47, 0xb504f333, 0xb123f581, 0xad583eea, 0xa9a15ab4, 0xa5fed6a9,
	0xa2704303, 0x9ef53260, 0x9b8d39b9, 0x9837f051, 0x94f4efa8, 0x91c3d373, 0x8ea4398b,
	0x8b95c1e3, 0x88980e80, 0x85aac367, 0x82cd8698,
};

/* ---------------------------------------------------------------- arithmetic */

u64 pelt_decay_load(u64 val, u64 n)
{
	if (n > LOAD_AVG_PERIOD * 63)
		return 0;
	/* y^n = (1/2)^(n / 32) * y^(n % 32): a shift and one table entry. */
	if (n >= LOAD_AVG_PERIOD) {
		val >>= n / LOAD_AVG_PERIOD;
		n %= LOAD_AVG_PERIOD;
	}
	return (u64)(((unsigned __int128)val * runnable_avg_yN_inv[n]) >> 32);
}

/* The d1 / full periods / d3 sum of the file comment, for periods >= 1. */
static u32 accumulate_segments(u64 periods, u32 d1, u32 d3)
{
	u32 c1 = (u32)pelt_decay_load(d1, periods);
	u32 c2 = LOAD_AVG_MAX - (u32)pelt_decay_load(LOAD_AVG_MAX, periods) - PELT_PERIOD;

	return c1 + c2 + d3;
}

/*
 * Adds delta units (> 0) to sa's sums: decays them by the periods crossed
 * and adds the contribution of the elapsed time to whichever of load,
 * runnable and running applies. Returns the periods crossed.
 */
static u64 accumulate_sum(u64 delta, struct sched_avg *sa, unsigned long load,
			  unsigned long runnable, bool running)
{
	u32 contrib = (u32)delta; /* no boundary crossed: delta < 1024 */
	u64 periods;

	delta += sa->period_contrib;
	periods = delta / PELT_PERIOD;
	if (periods) {
		sa->load_sum = pelt_decay_load(sa->load_sum, periods);
		sa->runnable_sum = pelt_decay_load(sa->runnable_sum, periods);
		sa->util_sum = (u32)pelt_decay_load(sa->util_sum, periods);
		delta %= PELT_PERIOD;
		/* Not runnable means neither runnable nor running: contrib is not used then. */
		if (load)
			contrib = accumulate_segments(periods, PELT_PERIOD - sa->period_contrib,
						      (u32)delta);
	}
	sa->period_contrib = (u32)delta;
	if (load)
		sa->load_sum += (u64)load * contrib;
	if (runnable)
		sa->runnable_sum += ((u64)runnable * contrib) << SCHED_CAPACITY_SHIFT;
	if (running)
		sa->util_sum += contrib << SCHED_CAPACITY_SHIFT;
	return periods;
}

bool pelt_update_sum(struct sched_avg *sa, u64 now, unsigned long load, unsigned long runnable,
		     bool running)
{
	u64 delta = now - sa->last_update_time;

	/* The clock went back (it should not): restart from here. */
	if ((s64)delta < 0) {
		sa->last_update_time = now;
		return false;
	}
	delta >>= 10; /* ns to units of 1024 ns */
	if (!delta)
		return false;
	sa->last_update_time += delta << 10;
	/* A dequeued entity may still be its queue's current for a moment: not running then. */
	if (!load)
		runnable = running = 0;
	return accumulate_sum(delta, sa, load, runnable, running) != 0;
}

void pelt_update_avg(struct sched_avg *sa, unsigned long load)
{
	u32 divider = pelt_divider(sa);

	sa->load_avg = (unsigned long)((u64)load * sa->load_sum / divider);
	sa->runnable_avg = (unsigned long)(sa->runnable_sum / divider);
	WRITE_ONCE(sa->util_avg, (unsigned long)(sa->util_sum / divider));
}

/* ------------------------------------------------------------- tasks and queues */

static inline void sub_positive_ul(unsigned long *v, unsigned long d)
{
	*v = *v > d ? *v - d : 0;
}

static inline void sub_positive_u64(u64 *v, u64 d)
{
	*v = *v > d ? *v - d : 0;
}

static void update_task(u64 now, struct rq *rq, struct task *p)
{
	bool queued = p->se.on_rq;

	if (pelt_update_sum(&p->pelt, now, queued, queued, rq->cfs.curr == &p->se))
		pelt_update_avg(&p->pelt, p->load.weight);
}

/* Takes what tasks woken elsewhere left as removed out of rq's sums, then ages them. */
static void update_queue(u64 now, struct rq *rq)
{
	struct cfs_rq *cfs_rq = &rq->cfs;
	struct sched_avg *sa = &cfs_rq->pelt.avg;
	struct pelt_removed *rm = &cfs_rq->pelt.removed;

	if (__atomic_load_n(&rm->nr, __ATOMIC_ACQUIRE)) {
		u32 divider = pelt_divider(sa);
		unsigned long r;

		__atomic_store_n(&rm->nr, 0, __ATOMIC_RELAXED);
		r = __atomic_exchange_n(&rm->load_avg, 0, __ATOMIC_ACQ_REL);
		sub_positive_ul(&sa->load_avg, r);
		sub_positive_u64(&sa->load_sum, (u64)r * divider);
		/* Rounding must not leave a sum below what its average stands for. */
		sa->load_sum = MAX(sa->load_sum, (u64)sa->load_avg * PELT_MIN_DIVIDER);
		r = __atomic_exchange_n(&rm->util_avg, 0, __ATOMIC_ACQ_REL);
		sub_positive_ul(&sa->util_avg, r);
		sa->util_sum = sa->util_sum > r * divider ? sa->util_sum - (u32)(r * divider) : 0;
		sa->util_sum = MAX(sa->util_sum, (u32)(sa->util_avg * PELT_MIN_DIVIDER));
		r = __atomic_exchange_n(&rm->runnable_avg, 0, __ATOMIC_ACQ_REL);
		sub_positive_ul(&sa->runnable_avg, r);
		sub_positive_u64(&sa->runnable_sum, (u64)r * divider);
		sa->runnable_sum = MAX(sa->runnable_sum, (u64)sa->runnable_avg * PELT_MIN_DIVIDER);
	}
	if (pelt_update_sum(sa, now, cfs_rq->load.weight, cfs_rq->nr_running, cfs_rq->curr != NULL))
		pelt_update_avg(sa, 1);
}

/*
 * p joins rq's sums, its window aligned with the queue's; its sums are
 * rebuilt from its averages for the new period_contrib (a small
 * truncation, as in Linux).
 */
static void attach(struct rq *rq, struct task *p)
{
	struct sched_avg *qa = &rq->cfs.pelt.avg, *sa = &p->pelt;
	u32 divider = pelt_divider(qa);
	unsigned long weight = p->load.weight;

	sa->last_update_time = qa->last_update_time;
	sa->period_contrib = qa->period_contrib;
	sa->util_sum = (u32)(sa->util_avg * divider);
	sa->runnable_sum = (u64)sa->runnable_avg * divider;
	sa->load_sum = (u64)sa->load_avg * divider;
	sa->load_sum = weight < sa->load_sum ? sa->load_sum / weight : 1;
	qa->load_avg += sa->load_avg;
	qa->load_sum += (u64)weight * sa->load_sum;
	qa->util_avg += sa->util_avg;
	qa->util_sum += sa->util_sum;
	qa->runnable_avg += sa->runnable_avg;
	qa->runnable_sum += sa->runnable_sum;
	/* A queue that had nothing attached starts its clock with its first task. */
	if (!qa->last_update_time)
		qa->last_update_time = sa->last_update_time = rq->clock_task;
}

static void detach(struct rq *rq, struct task *p)
{
	struct sched_avg *qa = &rq->cfs.pelt.avg, *sa = &p->pelt;

	sub_positive_ul(&qa->load_avg, sa->load_avg);
	sub_positive_u64(&qa->load_sum, (u64)p->load.weight * sa->load_sum);
	qa->load_sum = MAX(qa->load_sum, (u64)qa->load_avg * PELT_MIN_DIVIDER);
	sub_positive_ul(&qa->util_avg, sa->util_avg);
	qa->util_sum = qa->util_sum > sa->util_sum ? qa->util_sum - sa->util_sum : 0;
	qa->util_sum = MAX(qa->util_sum, (u32)(qa->util_avg * PELT_MIN_DIVIDER));
	sub_positive_ul(&qa->runnable_avg, sa->runnable_avg);
	sub_positive_u64(&qa->runnable_sum, sa->runnable_sum);
	qa->runnable_sum = MAX(qa->runnable_sum, (u64)qa->runnable_avg * PELT_MIN_DIVIDER);
	sa->last_update_time = 0;
}

void pelt_enqueue(struct rq *rq, struct task *p, int flags)
{
	u64 now = rq->clock_task;

	if (!sched_pelt_enabled)
		return;
	if (p->pelt.last_update_time)
		update_task(now, rq, p);
	update_queue(now, rq);
	if (!p->pelt.last_update_time)
		attach(rq, p);
}

void pelt_dequeue(struct rq *rq, struct task *p, int flags)
{
	u64 now = rq->clock_task;

	if (!sched_pelt_enabled)
		return;
	if (p->pelt.last_update_time)
		update_task(now, rq, p);
	update_queue(now, rq);
	/* Moving (or being reweighted): out of this queue's sums; back in at the enqueue. */
	if (!(flags & DEQUEUE_SLEEP) && p->pelt.last_update_time)
		detach(rq, p);
}

void pelt_update(struct rq *rq, struct task *p)
{
	u64 now = rq->clock_task;

	if (!sched_pelt_enabled)
		return;
	if (p->pelt.last_update_time)
		update_task(now, rq, p);
	update_queue(now, rq);
}

void pelt_migrate(struct task *p)
{
	struct sched_avg *sa = &p->pelt;
	struct pelt_removed *rm;

	if (!sched_pelt_enabled || !sa->last_update_time)
		return;
	/* Asleep: decay it to the old queue's last update, then leave that much behind. */
	rm = &task_rq(p)->cfs.pelt.removed;
	if (pelt_update_sum(sa, READ_ONCE(task_rq(p)->cfs.pelt.avg.last_update_time), 0, 0, false))
		pelt_update_avg(sa, p->load.weight);
	__atomic_fetch_add(&rm->load_avg, sa->load_avg, __ATOMIC_RELAXED);
	__atomic_fetch_add(&rm->util_avg, sa->util_avg, __ATOMIC_RELAXED);
	__atomic_fetch_add(&rm->runnable_avg, sa->runnable_avg, __ATOMIC_RELAXED);
	__atomic_fetch_add(&rm->nr, 1, __ATOMIC_RELEASE);
	sa->last_update_time = 0;
}

void pelt_task_init(struct task *p)
{
	p->pelt = (struct sched_avg){ .load_avg = p->load.weight };
}

void pelt_update_blocked(struct rq *rq)
{
	if (sched_pelt_enabled)
		update_queue(rq->clock_task, rq);
}

/* ---------------------------------------------------------------- readers */

unsigned long pelt_cpu_load(u32 cpu)
{
	return READ_ONCE(cpu_rq(cpu)->cfs.pelt.avg.load_avg);
}

unsigned long pelt_cpu_runnable(u32 cpu)
{
	return READ_ONCE(cpu_rq(cpu)->cfs.pelt.avg.runnable_avg);
}

unsigned long pelt_cpu_util(u32 cpu)
{
	return MIN(READ_ONCE(cpu_rq(cpu)->cfs.pelt.avg.util_avg), SCHED_CAPACITY_SCALE);
}

unsigned long pelt_task_load(const struct task *p)
{
	return READ_ONCE(p->pelt.load_avg);
}

unsigned long pelt_task_util(const struct task *p)
{
	return READ_ONCE(p->pelt.util_avg);
}
