/*
 * Host stand-in for arch/addr_space.h (user page tables): a software page
 * table per struct arch_mm, whose root and table pages come from the real
 * page allocator over fake RAM, so a leak shows both in these counters and
 * in page_alloc_free_pages().
 */
#ifndef FULCRUM_TESTS_FAKE_ADDR_SPACE_H
#define FULCRUM_TESTS_FAKE_ADDR_SPACE_H

#include <arch/addr_space.h>

struct vm;

/* Live fake address spaces, table pages (roots included) and mapped pages, all spaces together. */
extern unsigned long fake_mm_live;
extern unsigned long fake_mm_tables;
extern unsigned long fake_mm_mapped;

/* arch_mm_flush() calls so far; the address space last given to arch_mm_activate(). */
extern unsigned long fake_mm_flushes;
extern struct arch_mm *fake_mm_active;

/*
 * Calls that break the interface's contract: mapping a mapped page, bad
 * alignment or range, destroying a space that still maps frames, an
 * unknown arch_mm. Tests expect 0.
 */
extern unsigned long fake_mm_misuse;

/*
 * Failure injection: when a countdown is positive it is decremented on each
 * call and the call that brings it to 0 fails with -ENOMEM.
 */
extern long fake_mm_init_fail_in;
extern long fake_mm_map_fail_in;

/* Called at the start of every arch_mm_flush(), if set (e.g. to check no lock is held). */
extern void (*fake_mm_flush_hook)(struct arch_mm *mm);

/* Resets the counters and knobs above; the test must have destroyed every space. */
void fake_mm_reset(void);

#endif
