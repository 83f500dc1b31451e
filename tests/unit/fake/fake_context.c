/*
 * The host's arch_current_context(), apart from fake_arch.c because it
 * needs the scheduler, which the fuzz targets (linking fake_arch.c alone)
 * do not have.
 */
#include <arch/context.h>

#include "fake_arch.h"
#include "sched/sched.h"

/* The "running" context is the fake CPU's rq->curr: tests move it by hand. */
struct arch_context *arch_current_context(void)
{
	struct rq *rq = sched_nr_cpus() > fake_cpu_id ? cpu_rq(fake_cpu_id) : NULL;

	return rq && rq->curr ? &rq->curr->ctx : NULL;
}
