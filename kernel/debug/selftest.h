/* Deliberate faults on request (`selftest=`), so tests can check the fault reports. */
#ifndef FULCRUM_DEBUG_SELFTEST_H
#define FULCRUM_DEBUG_SELFTEST_H

/* Runs the fault named by the selftest= option, if any; those do not return. */
void selftest_run(void);

#endif
