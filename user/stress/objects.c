/* stress: the probes' shared helpers: counts back where they were, FAIL lines, naps, pinning. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "stress.h"

int objects_back(const char *probe, const struct objects *before)
{
	static struct objects after; /* static, as every probe's "before" */
	char prefix[64];
	int ok = objects_settle(before, &after, 500, 10);

	if (ok < 0)
		return 0;
	snprintf(prefix, sizeof(prefix), "stress %s:", probe);
	objects_print(prefix, before, &after);
	return ok;
}

int probe_fail(const char *probe, const char *fmt, ...)
{
	va_list ap;

	printf("stress %s: FAIL: ", probe);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	return 1;
}

void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

void stress_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}
