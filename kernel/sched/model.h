/*
 * sched_model=: one name for a generation of Linux's scheduler, setting the
 * fair class's mode, the load balancer (and with it PELT), the placement
 * and its select_idle_sibling, and the balance intervals' busy factor at
 * once (kernel/sched/model.c). Each of those options given on the command
 * line itself wins over the model, wherever it stands on the line.
 */
#ifndef FULCRUM_SCHED_MODEL_H
#define FULCRUM_SCHED_MODEL_H

#include "lib/types.h"

/* The model chosen at boot: "linux-3.8" (the default) or "linux-6.12". */
extern const char *sched_model;

/*
 * What runs, as "fair=eevdf balance=modern pelt=on select=stock
 * idle_sibling=6.12 busy_factor=16", into buf[0..size) (NUL-terminated,
 * cut if it does not fit). Read at the time of the call: a switch made
 * since boot (sysctl sched_select=) shows.
 */
void sched_model_describe(char *buf, size_t size);

/*
 * The settings that differ from the model's own (an option given beside
 * sched_model=, or a sysctl since), as "sched_fair=cfs sched_select=sbm",
 * into buf; "" when none does. Returns how many differ.
 */
int sched_model_overrides(char *buf, size_t size);

/* One boot-log line: "sched_model: linux-6.12: fair=eevdf ..." and any overrides. */
void sched_model_print(void);

#endif
