/* The boot steps that discover the machine (kernel/machine.c). */
#ifndef FULCRUM_MACHINE_BOOT_H
#define FULCRUM_MACHINE_BOOT_H

#include "boot/boot_info.h"
#include "machine.h"
#include "mm/memmap.h"

/*
 * Reads the ACPI tables (CPUs, nodes, distances; with the fallbacks and
 * the acpi=, numa=, maxcpus=, nosmp options) and reserves every table's
 * memory in mm. Runs before paging: it reads through the boot page tables.
 */
void machine_read_firmware(const struct boot_info *bi, struct memmap *mm);

/* Completes the description with CPUID (package, core, thread, LLC); prints it at debug level. */
const struct machine *machine_read_cpus(void);

/* The machine as discovered at boot (for tests that rebuild from it). */
const struct machine *machine_current(void);

#endif
