/*
 * tools/sim/rtapp_dump.c - build/tools/rtapp-dump: reads an rt-app JSON file
 * with fulcrum-sim's front end and prints the workload it describes, or the
 * one reason it is refused. The rt-app tests run it; so can anyone checking
 * a workload before simulating it.
 *
 *   rtapp-dump [--cpus N] FILE
 *
 * Exit status: 0 parsed (description on stdout), 1 refused (message on
 * stderr), 2 bad usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtapp.h"

static int usage(void)
{
	fprintf(stderr, "usage: rtapp-dump [--cpus N] FILE\n"
			"  --cpus N  refuse \"cpus\" entries at or beyond N (the machine's CPUs)\n");
	return 2;
}

int main(int argc, char **argv)
{
	unsigned int nr_cpus = 0;
	const char *path = NULL;
	struct workload wl;
	char err[RTAPP_ERR_MAX];

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--cpus") && i + 1 < argc) {
			char *end;
			unsigned long n = strtoul(argv[++i], &end, 10);

			if (*end || !n || n > 65536)
				return usage();
			nr_cpus = (unsigned int)n;
		} else if (argv[i][0] == '-' || path) {
			return usage();
		} else {
			path = argv[i];
		}
	}
	if (!path)
		return usage();
	if (rtapp_parse_file(path, nr_cpus, &wl, err, sizeof(err))) {
		fprintf(stderr, "rtapp-dump: %s\n", err);
		return 1;
	}
	workload_print(stdout, &wl);
	workload_free(&wl);
	return 0;
}
