/*
 * The periodic timer tick, called on every CPU from its timer interrupt.
 * The scheduler's tick work hooks in here.
 */
#include <arch/smp.h>

#include "sched/topology.h"

void kernel_timer_tick(unsigned int cpu)
{
	/* A tick is outside every topology reader on this CPU: old generations may go. */
	sched_topology_quiescent(cpu);
}
