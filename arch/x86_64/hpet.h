/* The HPET's main counter as a reference clock for calibration. */
#ifndef FULCRUM_X86_HPET_H
#define FULCRUM_X86_HPET_H

#include "acpi/tables.h"
#include "tsc.h"

/*
 * Finds the HPET through the ACPI HPET table, maps its registers, starts
 * its main counter if the firmware left it stopped, and describes the
 * counter in *out. Returns false (printing why, unless there is no table)
 * when there is no usable HPET. After paging is up (it maps MMIO).
 */
bool hpet_ref_clock(const struct acpi_tables *t, struct ref_clock *out);

#endif
