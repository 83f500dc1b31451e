/* Knobs of the host current-process hooks (fake_current.c). */
#ifndef FULCRUM_TESTS_FAKE_CURRENT_H
#define FULCRUM_TESTS_FAKE_CURRENT_H

#include <stdbool.h>
#include <stdint.h>

#define FAKE_NSIG 65

struct files;
struct fs_struct;

/* What current_files() returns. */
extern struct files *fake_files;
/* What current_fs() returns (NULL: relative paths start at "/"). */
extern struct fs_struct *fake_fs;
/* What current_signal_pending() returns. */
extern bool fake_signal_pending;
/* How many times each signal was sent to the caller. */
extern int fake_signals_sent[FAKE_NSIG];

/* current_sigmask_begin's mask, whether it is in force, and how many calls ended one. */
extern uint64_t fake_sigmask;
extern bool fake_sigmask_set;
extern int fake_sigmask_ends;

void fake_current_reset(void);

#endif
