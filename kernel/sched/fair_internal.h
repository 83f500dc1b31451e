/*
 * What the fair class's two modes share (fair.c: CFS, the default; eevdf.c:
 * EEVDF, sched_fair=eevdf): the entity and queue accessors, and the entry
 * points fair.c's operations hand over to when EEVDF is chosen.
 */
#ifndef FULCRUM_SCHED_FAIR_INTERNAL_H
#define FULCRUM_SCHED_FAIR_INTERNAL_H

#include "sched/sched.h"

/* The sched_fair= boot option: "cfs" or "eevdf", fixed from boot on. */
extern const char *sched_fair_mode;

static inline bool fair_eevdf(void)
{
	return sched_fair_mode[0] == 'e';
}

static inline struct task *task_of(struct sched_entity *se)
{
	return container_of(se, struct task, se);
}

/* A fair task's weight is its task's, set by the core from its nice value. */
static inline struct load_weight *se_load(struct sched_entity *se)
{
	return &task_of(se)->load;
}

static inline struct rq *rq_of(struct cfs_rq *cfs_rq)
{
	return container_of(cfs_rq, struct rq, cfs);
}

static inline struct cfs_rq *cfs_rq_of(struct sched_entity *se)
{
	return &task_rq(task_of(se))->cfs;
}

static inline struct sched_entity *timeline_entity(const struct rb_node *node)
{
	return rb_entry_safe((struct rb_node *)node, struct sched_entity, run_node);
}

/* vruntimes wrap: every comparison is on the signed difference. */
static inline bool vruntime_before(u64 a, u64 b)
{
	return (s64)(a - b) < 0;
}

static inline u64 vruntime_max(u64 a, u64 b)
{
	return vruntime_before(a, b) ? b : a;
}

static inline u64 vruntime_min(u64 a, u64 b)
{
	return vruntime_before(b, a) ? b : a;
}

/* Wall-clock ns to se's virtual ns: delta * NICE_0_LOAD / weight (fair.c, lab 2's region). */
u64 calc_delta_fair(u64 delta, struct sched_entity *se);

static inline void clear_buddies(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	if (cfs_rq->last == se)
		cfs_rq->last = NULL;
	if (cfs_rq->next == se)
		cfs_rq->next = NULL;
	if (cfs_rq->skip == se)
		cfs_rq->skip = NULL;
}

/*
 * EEVDF's operations (eevdf.c), each the counterpart of the fair.c
 * operation of the same name and called, with the same locks, only when
 * fair_eevdf().
 */
void eevdf_update_curr(struct cfs_rq *cfs_rq);
void eevdf_enqueue_task(struct rq *rq, struct task *p, int flags);
void eevdf_dequeue_task(struct rq *rq, struct task *p, int flags);
struct task *eevdf_pick_next_task(struct rq *rq);
void eevdf_put_prev_task(struct rq *rq, struct task *prev);
void eevdf_task_tick(struct rq *rq, struct task *curr);
void eevdf_check_preempt(struct rq *rq, struct task *p, int wake_flags);
void eevdf_yield_task(struct rq *rq);
void eevdf_task_fork(struct task *p);
void eevdf_task_waking(struct task *p);
void eevdf_prio_changed(struct rq *rq, struct task *p, int old_nice);
void eevdf_switched_from(struct rq *rq, struct task *p);
void eevdf_switched_to(struct rq *rq, struct task *p);
void eevdf_task_init(struct task *p);
void eevdf_adopt_task(struct rq *rq, struct task *p);
int eevdf_verify(struct rq *rq);

/*
 * The weighted average vruntime V of cfs_rq's queue (curr included), the
 * zero-lag point: an entity is eligible while its vruntime is not after it.
 */
u64 eevdf_avg_vruntime(struct cfs_rq *cfs_rq);
bool eevdf_entity_eligible(struct cfs_rq *cfs_rq, struct sched_entity *se);

/* The base slice: sysctl_sched_min_granularity, 0.75 ms x (1 + ilog2(min(ncpus, 8))). */
static inline u64 eevdf_base_slice(void)
{
	return sysctl_sched_min_granularity;
}

#endif
