/* Knobs of the host x87/SSE stand-in (fake_fpu.c). */
#ifndef FULCRUM_TESTS_FAKE_FPU_H
#define FULCRUM_TESTS_FAKE_FPU_H

#include <arch/fpu.h>

/* The "CPU's" x87/SSE registers, as fpu_save_current and friends see and change them. */
extern struct fpu_state fake_fpu_live;

#endif
