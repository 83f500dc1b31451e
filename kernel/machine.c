/*
 * Finding out the machine at boot: ACPI (MADT, SRAT, SLIT) names the CPUs,
 * nodes and distances; CPUID places each CPU in its package, core, thread
 * and last-level cache. ACPI is read before paging is set up, while the
 * boot page tables still map the first 4 GiB, so that every table can be
 * fenced off from the page allocator.
 */
#include "machine_boot.h"

#include <arch/console.h>
#include <arch/memory.h>
#include <arch/smp.h>
#include <arch/topology.h>

#include "acpi/spcr.h"
#include "acpi/topology.h"
#include "lib/string.h"
#include "printk.h"

#define LOW_4G (4ULL << 30)

static struct machine machine;

/* Both the boot page tables and the final ones direct-map the first 4 GiB. */
static const void *map_below_4g(u64 phys, u32 len, void *ctx)
{
	if (phys + len < phys || phys + len > LOW_4G)
		return NULL;
	return phys_to_virt(phys);
}

static void reserve_table(const struct acpi_table_info *table, void *arg)
{
	memmap_reserve(arg, table->phys, table->phys + table->length);
}

/* The SPCR table, if any: the serial console a server's firmware and BMC use. */
static void spcr_console(const struct acpi_table_info *table, void *arg)
{
	bool *seen = arg;
	struct acpi_spcr_info spcr;

	if (*seen || table->refused || memcmp(table->signature, ACPI_SPCR_SIGNATURE, 4))
		return;
	*seen = true;
	if (acpi_spcr_parse(table->data, table->length, &spcr) == 0)
		arch_console_firmware_uart(spcr.mmio, spcr.address, spcr.reg_width, spcr.baud);
}

void machine_read_firmware(const struct boot_info *bi, struct memmap *mm)
{
	bool spcr_seen = false;

	acpi_read_machine(bi, map_below_4g, NULL, arch_boot_apic_id(), &machine);
	acpi_for_each_table(reserve_table, mm);
	acpi_for_each_table(spcr_console, &spcr_seen);
}

const struct machine *machine_read_cpus(void)
{
	arch_read_cpu_topology(&machine);
	for (u32 i = 0; i < machine.nr_cpus; i++) {
		const struct machine_cpu *c = &machine.cpu[i];

		pr_debug("CPU%u: APIC ID %#x, package %u, core %u, thread %u, LLC %u, node %u\n", i,
			 c->apic_id, c->package, c->core, c->thread, c->llc, c->node);
	}
	return &machine;
}

const struct machine *machine_current(void)
{
	return &machine;
}
