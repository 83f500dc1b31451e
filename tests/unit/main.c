/* Runs every host unit-test suite; exit status 0 only if all pass. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

/* Weak so a suite still being written leaves the others runnable; a missing one fails the run. */
#pragma weak printf_suite
#pragma weak trace_suite
#pragma weak kstrto_suite
#pragma weak printk_suite
#pragma weak cmdline_suite
#pragma weak memmap_suite
#pragma weak page_alloc_suite
#pragma weak heap_suite
#pragma weak ksyms_suite
#pragma weak multiboot2_suite
#pragma weak pvh_suite
#pragma weak cpuid_topology_suite
#pragma weak fbcon_text_suite
#pragma weak acpi_tables_suite
#pragma weak acpi_madt_suite
#pragma weak acpi_srat_suite
#pragma weak acpi_slit_suite
#pragma weak acpi_spcr_suite
#pragma weak acpi_topology_suite
#pragma weak cpumask_suite
#pragma weak topology_suite
#pragma weak balance_map_suite
#pragma weak topology_gen_suite
#pragma weak rbtree_suite
#pragma weak balance_suite
#pragma weak stop_suite
#pragma weak schedstat_suite
#pragma weak select_suite
#pragma weak load_suite
#pragma weak fair_suite
#pragma weak eevdf_suite
#pragma weak vm_suite
#pragma weak cpio_suite
#pragma weak initrd_suite
#pragma weak elf_suite
#pragma weak uaccess_suite
#pragma weak user_regs_suite
#pragma weak file_suite
#pragma weak pipe_suite
#pragma weak socket_suite
#pragma weak poll_suite
#pragma weak procfs_suite
#pragma weak console_suite
#pragma weak futex_suite
#pragma weak time_suite
#pragma weak hrtimer_suite
#pragma weak signal_suite
#pragma weak dirent_suite
#pragma weak fs_paths_suite
#pragma weak fs_select_suite
#pragma weak madvise_suite
#pragma weak sched_class_suite
#pragma weak rt_suite
#pragma weak lab_rr_suite
#pragma weak pelt_suite
#pragma weak balance_modern_suite
#pragma weak sched_model_suite

/* Is name one of the comma-separated list's? */
static int listed(const char *list, const char *name)
{
	size_t len = strlen(name);

	for (const char *p = list; *p;) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		if (n == len && memcmp(p, name, len) == 0)
			return 1;
		p += n + (end != NULL);
	}
	return 0;
}

void unit_add_test(TCase *tc, const TTest *ttest, int start, int end)
{
	const char *only = getenv("UNIT_ONLY");

	if (only && *only && !listed(only, ttest->name))
		return;
	_tcase_add_test(tc, ttest, 0, 0, start, end);
}

int main(void)
{
	struct {
		const char *name;
		Suite *(*make)(void);
	} suites[] = {
		{ "printf", printf_suite },
		{ "kstrto", kstrto_suite },
		{ "printk", printk_suite },
		{ "cmdline", cmdline_suite },
		{ "memmap", memmap_suite },
		{ "page_alloc", page_alloc_suite },
		{ "heap", heap_suite },
		{ "ksyms", ksyms_suite },
		{ "multiboot2", multiboot2_suite },
		{ "pvh", pvh_suite },
		{ "cpuid_topology", cpuid_topology_suite },
		{ "fbcon_text", fbcon_text_suite },
		{ "acpi_tables", acpi_tables_suite },
		{ "acpi_madt", acpi_madt_suite },
		{ "acpi_srat", acpi_srat_suite },
		{ "acpi_slit", acpi_slit_suite },
		{ "acpi_spcr", acpi_spcr_suite },
		{ "acpi_topology", acpi_topology_suite },
		{ "cpumask", cpumask_suite },
		{ "topology", topology_suite },
		{ "balance_map", balance_map_suite },
		{ "topology_gen", topology_gen_suite },
		{ "rbtree", rbtree_suite },
		{ "balance", balance_suite },
		{ "stop", stop_suite },
		{ "schedstat", schedstat_suite },
		{ "select", select_suite },
		{ "load", load_suite },
		{ "fair", fair_suite },
		{ "eevdf", eevdf_suite },
		{ "sched_class", sched_class_suite },
		{ "rt", rt_suite },
		{ "lab_rr", lab_rr_suite },
		{ "pelt", pelt_suite },
		{ "balance_modern", balance_modern_suite },
		{ "sched_model", sched_model_suite },
		{ "vm", vm_suite },
		{ "cpio", cpio_suite },
		{ "initrd", initrd_suite },
		{ "elf", elf_suite },
		{ "uaccess", uaccess_suite },
		{ "user_regs", user_regs_suite },
		{ "file", file_suite },
		{ "pipe", pipe_suite },
		{ "socket", socket_suite },
		{ "poll", poll_suite },
		{ "procfs", procfs_suite },
		{ "console", console_suite },
		{ "futex", futex_suite },
		{ "time", time_suite },
		{ "hrtimer", hrtimer_suite },
		{ "signal", signal_suite },
		{ "dirent", dirent_suite },
		{ "fs_paths", fs_paths_suite },
		{ "fs_select", fs_select_suite },
		{ "madvise", madvise_suite },
		{ "trace", trace_suite },
	};
	SRunner *sr = srunner_create(NULL);
	int missing = 0, failed;

	for (size_t i = 0; i < sizeof(suites) / sizeof(suites[0]); i++) {
		if (!suites[i].make) {
			fprintf(stderr, "unit: suite '%s' is not linked in\n", suites[i].name);
			missing++;
			continue;
		}
		srunner_add_suite(sr, suites[i].make());
	}
	srunner_run_all(sr, CK_ENV); /* CK_VERBOSITY=verbose lists each test (tools/grade) */
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed || missing ? EXIT_FAILURE : EXIT_SUCCESS;
}
