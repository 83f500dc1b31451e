/*
 * sched_verify: the scheduler's invariants, checked as it runs when the
 * SCHED_VERIFY feature is on (`sched_features=SCHED_VERIFY`; the tests
 * turn it on). fair_verify() checks a CFS queue at every change; the
 * checks here are the class-independent ones made at every pick, which
 * learn what a class holds only through its operations (nr_queued). Every
 * check and every violation is counted, so a run can end with the proof
 * that nothing was found.
 */
#include "sched/sched.h"

#include <arch/smp.h>

#include "printk.h"

static u64 verify_checks, verify_violations;

void sched_verify_count(bool ok)
{
	__atomic_add_fetch(&verify_checks, 1, __ATOMIC_RELAXED);
	if (!ok)
		__atomic_add_fetch(&verify_violations, 1, __ATOMIC_RELAXED);
}

static bool verify_that(struct rq *rq, bool ok, const char *what, const struct task *p)
{
	if (!ok)
		pr_err("sched: cpu%u: invariant broken: %s (pid %d %s)\n", rq->cpu, what,
		       p ? p->pid : -1, p ? p->comm : "-");
	return ok;
}

/* The tasks queued on rq as the classes that can say count them (their nr_queued operation). */
static u32 classes_nr_queued(const struct rq *rq)
{
	const struct sched_class *class;
	u32 nr = 0;

	for_each_class (class)
		if (class->nr_queued)
			nr += class->nr_queued(rq);
	return nr;
}

void sched_verify_pick(struct rq *rq, struct task *prev, struct task *next)
{
	bool ok = true;

	ok &= verify_that(rq, task_cpu(next) == rq->cpu, "the picked task belongs to another CPU",
			  next);
	/* Until set_cpus_allowed() has moved it, a task may still run where it was. */
	ok &= verify_that(rq,
			  next == rq->idle || cpumask_test_cpu(rq->cpu, &next->cpus_allowed) ||
				  READ_ONCE(next->migration_pending),
			  "the picked task may not run on this CPU", next);
	/* Running elsewhere means on two CPUs at once; prev is still here, saving its context. */
	ok &= verify_that(rq, next == prev || !READ_ONCE(next->on_cpu),
			  "the picked task still runs on another CPU", next);
	ok &= verify_that(rq, next == rq->idle || next->on_rq, "the picked task is not queued", next);
	/* Not necessarily TASK_RUNNING: a task preempted while going to sleep stays queued. */
	ok &= verify_that(rq, next->state != TASK_DEAD, "the picked task is dead", next);
	ok &= verify_that(rq, classes_nr_queued(rq) <= rq->nr_running,
			  "nr_running is less than the classes' queues hold", NULL);
	ok &= verify_that(rq, next != rq->idle || rq->nr_running == rq->nr_throttled,
			  "the CPU idles with tasks queued", NULL);
	sched_verify_count(ok);
}

void sched_verify_totals(u64 *checks, u64 *violations)
{
	*checks = __atomic_load_n(&verify_checks, __ATOMIC_RELAXED);
	*violations = __atomic_load_n(&verify_violations, __ATOMIC_RELAXED);
}

void sched_verify_rq_held(struct rq *rq, const char *func)
{
	bool ok = spin_held_here(&rq->lock);

	if (!ok)
		pr_err("sched: cpu%u: %s called without cpu%u's rq->lock held\n", arch_cpu_id(),
		       func, rq->cpu);
	sched_verify_count(ok);
}
