/* stress: reading /proc/fulcrum/objects and comparing two readings. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "stress.h"

#define OBJECTS "/proc/fulcrum/objects"

int objects_take(struct objects *o)
{
	char buf[4096], *line, *save;
	int fd = open(OBJECTS, O_RDONLY), len;

	if (fd < 0) {
		printf("stress: %s: %s\n", OBJECTS, strerror(errno));
		return -1;
	}
	len = (int)read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0) {
		printf("stress: %s: nothing read\n", OBJECTS);
		return -1;
	}
	buf[len] = '\0';
	o->n = 0;
	for (line = strtok_r(buf, "\n", &save); line && o->n < MAX_COUNTS;
	     line = strtok_r(NULL, "\n", &save))
		if (sscanf(line, "%31s %lld", o->name[o->n], &o->value[o->n]) == 2)
			o->n++;
	return o->n ? 0 : -1;
}

long long objects_get(const struct objects *o, const char *name)
{
	for (int i = 0; i < o->n; i++)
		if (strcmp(o->name[i], name) == 0)
			return o->value[i];
	return -1;
}

static int same(const struct objects *a, const struct objects *b)
{
	if (a->n != b->n)
		return 0;
	for (int i = 0; i < a->n; i++)
		if (strcmp(a->name[i], b->name[i]) || a->value[i] != b->value[i])
			return 0;
	return 1;
}

int objects_back(const char *probe, const struct objects *before)
{
	struct objects after;
	int ok = 0;

	for (int tries = 0; tries < 500 && !ok; tries++) {
		if (tries)
			sleep_ms(10);
		if (objects_take(&after))
			return 0;
		ok = same(before, &after);
	}
	for (int i = 0; i < before->n; i++) {
		long long now = objects_get(&after, before->name[i]);

		printf("stress %s: %-20s %10lld -> %10lld%s\n", probe, before->name[i],
		       before->value[i], now, now == before->value[i] ? "" : "   DIFFERS");
	}
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
