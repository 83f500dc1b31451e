/* Host unit tests of kernel code: every suite the runner knows. */
#ifndef FULCRUM_TESTS_UNIT_H
#define FULCRUM_TESTS_UNIT_H

#include <check.h>

Suite *printf_suite(void);
Suite *kstrto_suite(void);
Suite *printk_suite(void);
Suite *cmdline_suite(void);
Suite *memmap_suite(void);
Suite *page_alloc_suite(void);
Suite *heap_suite(void);
Suite *ksyms_suite(void);
Suite *multiboot2_suite(void);
Suite *cpuid_topology_suite(void);

#endif
