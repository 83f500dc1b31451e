/* The ACPI power-management timer as a reference clock for calibration. */
#ifndef FULCRUM_X86_PMTIMER_H
#define FULCRUM_X86_PMTIMER_H

#include "acpi/tables.h"
#include "tsc.h"

/*
 * Finds the PM timer's I/O port in the FADT (X_PM_TMR_BLK when it names
 * an I/O port, else PM_TMR_BLK) and describes the counter in *out: 3.579545
 * MHz, 24 or 32 bits (FADT flag TMR_VAL_EXT). Returns false when the FADT
 * names none.
 */
bool pmtimer_ref_clock(const struct acpi_tables *t, struct ref_clock *out);

#endif
