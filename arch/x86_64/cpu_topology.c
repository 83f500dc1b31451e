/* arch_read_cpu_topology: the boot CPU's CPUID leaves applied to every CPU's APIC ID. */
#include <arch/topology.h>

#include "cpuid_topology.h"
#include "printk.h"

static struct cpuid_regs real_cpuid(u32 leaf, u32 subleaf)
{
	return cpuid(leaf, subleaf);
}

void arch_read_cpu_topology(struct machine *m)
{
	struct apic_id_layout l;

	/* The widths are the same on every CPU of a machine, hybrid ones included. */
	cpuid_read_layout(real_cpuid, &l);
	cpuid_apply_layout(&l, m);
	if (l.llc_level)
		pr_info("cpu topology (%s): APIC ID = package << %u | core | thread (%u bit%s); LLC L%u shared by 2^%u IDs\n",
			l.source, l.pkg_shift, l.smt_bits, l.smt_bits == 1 ? "" : "s", l.llc_level,
			l.llc_shift);
	else
		pr_info("cpu topology (%s): APIC ID = package << %u | core | thread (%u bit%s); no cache leaf: LLC per package\n",
			l.source, l.pkg_shift, l.smt_bits, l.smt_bits == 1 ? "" : "s");
}
