/* `sched_cost`: the placement and context-switch cost figures, measured at the end of boot. */
#ifndef FULCRUM_SCHED_COST_BENCH_H
#define FULCRUM_SCHED_COST_BENCH_H

/* Prints the RESULT lines if the sched_cost option is on. Needs a sleeping-capable thread. */
void sched_cost_run(void);

#endif
