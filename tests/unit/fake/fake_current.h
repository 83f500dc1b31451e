/* Knobs of the host current-process hooks (fake_current.c). */
#ifndef FULCRUM_TESTS_FAKE_CURRENT_H
#define FULCRUM_TESTS_FAKE_CURRENT_H

#include <stdbool.h>

#define FAKE_NSIG 65

struct files;

/* What current_files() returns. */
extern struct files *fake_files;
/* What current_signal_pending() returns. */
extern bool fake_signal_pending;
/* How many times each signal was sent to the caller. */
extern int fake_signals_sent[FAKE_NSIG];

void fake_current_reset(void);

#endif
