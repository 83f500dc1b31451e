/* Host stand-ins for the arch interface, with knobs the tests turn. */
#ifndef FULCRUM_TESTS_FAKE_ARCH_H
#define FULCRUM_TESTS_FAKE_ARCH_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

/* What arch_clock_ns() returns. */
extern uint64_t fake_clock_ns;
extern uint64_t fake_rtc_seconds; /* read once, at the wall clock's first use */

/* The last deadline arch_timer_program() was given, and how many times it was called. */
extern uint64_t fake_timer_deadline;
extern unsigned int fake_timer_programs;

/* What arch_cpu_id() returns, and how many reschedule IPIs were sent. */
extern unsigned int fake_cpu_id;
extern unsigned int fake_reschedule_ipis;

/* Everything written to the console since the last fake_console_reset(). */
const char *fake_console_text(void);
void fake_console_reset(void);

/*
 * Fake physical memory: bytes [0, size) of "physical" address space backed
 * by host memory (reserved lazily), so phys_to_virt() works. Returns the
 * arena; fake_ram_free() releases it.
 */
void *fake_ram_init(size_t size);
void fake_ram_free(void);

/* The trace channel (arch/trace.h): present unless a test says not, and what reached it. */
extern bool fake_trace_channel;
const char *fake_trace_channel_text(void);
void fake_trace_channel_reset(void);

#endif
