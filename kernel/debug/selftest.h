/* Deliberate faults on request (`selftest=`), so tests can check the fault reports. */
#ifndef FULCRUM_DEBUG_SELFTEST_H
#define FULCRUM_DEBUG_SELFTEST_H

#include "lib/types.h"

/* Runs the fault named by the selftest= option, if any; those do not return. */
void selftest_run(void);

/* Does selftest= name this suite of in-kernel tests (e.g. "sched")? */
bool selftest_suite_is(const char *suite);

#endif
