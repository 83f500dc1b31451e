/*
 * The periodic timer tick, called on every CPU from its timer interrupt.
 * The scheduler's tick work hooks in here.
 */
#include <arch/smp.h>

void kernel_timer_tick(unsigned int cpu)
{
	(void)cpu;
}
