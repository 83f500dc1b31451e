/* Console input for host tests (fake_console_input.c). */
#ifndef FULCRUM_TESTS_FAKE_CONSOLE_INPUT_H
#define FULCRUM_TESTS_FAKE_CONSOLE_INPUT_H

#include <stddef.h>

/* Queues n bytes that arch_console_read_char() then returns one by one. */
void fake_console_type(const char *s, size_t n);

#endif
