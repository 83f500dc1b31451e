/*
 * The real-time class (SCHED_FIFO and SCHED_RR), kernel/sched/rt/: its
 * per-CPU queue and per-task state, shared by the class (class.c), the
 * placement of its tasks between CPUs (push.c) and the policy calls
 * (policy.c). Outside this folder only the calls at the end are used.
 */
#ifndef FULCRUM_SCHED_RT_RT_H
#define FULCRUM_SCHED_RT_RT_H

#include "lib/list.h"
#include "lib/types.h"
#include "sched/task.h"

struct rq;
struct task;

#define RT_PRIO_MIN 1
#define RT_PRIO_MAX 99
#define RT_LEVELS   (RT_PRIO_MAX + 1) /* queue index = rt priority; 0 unused */

/*
 * One CPU's real-time queue. Every queued task of the class, the running
 * one included, is on the list of its priority; the running task stays
 * where it is (at the head of its list, unless it yielded), so a task
 * preempted by a higher priority runs again first when that one is gone.
 */
struct rt_rq {
	struct list_head queue[RT_LEVELS];
	u64 bitmap[2];	/* bit n: queue[n] is not empty */
	u32 nr_running; /* queued tasks of the class, the running one included */
	u32 highest;	/* the highest priority queued, 0 if none (read without the lock) */
	bool curr_rt;	/* rq->curr is one of ours (between pick and put_prev) */
	bool throttled; /* used up its run time in this period: picks nothing */
	u64 rt_time;	/* ns the class ran in the current period */
	u64 period_start;
	u64 nr_throttles; /* periods in which it was throttled, since boot */
	u64 nr_pushed, nr_pulled;
};

/* A task's state in its class slot. */
struct rt_task {
	struct list_head run_list; /* in rt_rq.queue[prio] while queued */
	u64 time_slice;		   /* SCHED_RR: ns left of its slice */
	u32 prio;		   /* the priority it is queued at */
	bool queued;
};

/* The tunables (boot options sched_rt_runtime_us, sched_rt_period_us, sched_rr_timeslice_ms). */
extern s64 sysctl_sched_rt_runtime_us; /* -1: no limit */
extern s64 sysctl_sched_rt_period_us;
extern s64 sysctl_sched_rr_timeslice_ms;

extern const struct sched_class rt_sched_class;

struct rt_rq *rt_rq_of(u32 cpu);

/* p's state in its slot (p of this class). */
struct rt_task *rt_task_of(struct task *p);

/* The priority p has or would be queued at: its rt_priority within 1..99. */
u32 rt_task_prio(const struct task *p);

/*
 * The highest-priority task queued on rq, neither running there nor the
 * one rq picks next, that may run on cpu (MAX_CPUS: on some other CPU
 * than rq's), with a priority above `above`, or NULL (rq lock held).
 * Looks at 64 tasks at most.
 */
struct task *rt_waiting_task(struct rq *rq, u32 cpu, u32 above);

/* ---------------------------------------------------------------- push.c */

/*
 * A CPU's place in the cpupri order, read without locks: 0 idle, 1 running
 * fair (or lower) tasks, 1 + p for real-time priority p at the top of its
 * queue. RT_LEVEL_NONE: throttled with real-time tasks queued, never a
 * place to send one.
 */
#define RT_LEVEL_IDLE	0
#define RT_LEVEL_NORMAL 1
#define RT_LEVEL_NONE	(RT_LEVELS + 1)
u32 rt_cpu_level(u32 cpu);

/*
 * The CPU p should run on among its allowed online CPUs whose level is
 * below p's (1 + its priority), the lowest level first; among equals p's
 * own CPU, then the nearest to `near` in the domain tree, then the lowest
 * number. MAX_CPUS if none is below p. No lock needed.
 */
u32 rt_find_lowest_cpu(struct task *p, u32 near);

/* Moves waiting tasks off rq to lower CPUs / onto rq from higher ones; no rq lock held. */
u32 rt_push_tasks(struct rq *rq);
u32 rt_pull_tasks(struct rq *rq);

/* ---------------------------------------------------------------- for everyone else */

/* Is policy SCHED_FIFO or SCHED_RR? */
static inline bool sched_policy_rt(u32 policy)
{
	return policy == SCHED_FIFO || policy == SCHED_RR;
}

/*
 * Sets t's policy and static priority, as sched_setscheduler(2) does:
 * SCHED_FIFO / SCHED_RR with prio 1..99 move t into the real-time class
 * (or requeue it there at its new priority, Linux's rule: raised goes to
 * the tail of its new list, lowered to the head, unchanged stays), the
 * fair policies (SCHED_NORMAL, SCHED_BATCH, SCHED_IDLE) with prio 0 into
 * the class new tasks get (fair unless sched= says otherwise) and
 * reweight it. -EINVAL for another policy or a priority out of range,
 * -EPERM for the stopper and idle tasks. Takes t's pi_lock and rq lock.
 * sched_setattr's FIFO/RR case calls this too.
 */
int sched_setscheduler_task(struct task *t, int policy, u32 prio);

/* The SCHED_RR slice in ns (sched_rr_get_interval). */
u64 sched_rr_timeslice_ns(void);

/*
 * A new task t inherits its creator's policy and priority (fork, clone):
 * t is not yet visible nor runnable. Linux's sched_fork without
 * SCHED_RESET_ON_FORK.
 */
void sched_fork_policy(struct task *t, const struct task *parent);

#endif
