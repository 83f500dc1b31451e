/* What the CPU itself says about the machine's shape. */
#ifndef FULCRUM_ARCH_TOPOLOGY_H
#define FULCRUM_ARCH_TOPOLOGY_H

#include "machine.h"

/*
 * Fills package, core, thread and llc of every CPU in m from its apic_id,
 * using the field widths the boot CPU's CPUID reports.
 */
void arch_read_cpu_topology(struct machine *m);

#endif
