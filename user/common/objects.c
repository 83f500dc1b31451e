/* Reading and comparing /proc/fulcrum/objects: see objects.h. */
#include "objects.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int objects_take(struct objects *o)
{
	/* Static: a stack buffer's first use would itself fault in the page being counted. */
	static char buf[4096];
	char *line, *save;
	int fd = open(OBJECTS_PATH, O_RDONLY), len;

	if (fd < 0) {
		printf("%s: %s\n", OBJECTS_PATH, strerror(errno));
		return -1;
	}
	len = (int)read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0) {
		printf("%s: nothing read\n", OBJECTS_PATH);
		return -1;
	}
	buf[len] = '\0';
	o->n = 0;
	for (line = strtok_r(buf, "\n", &save); line && o->n < OBJECTS_MAX_COUNTS;
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

bool objects_same(const struct objects *a, const struct objects *b)
{
	if (a->n != b->n)
		return false;
	for (int i = 0; i < a->n; i++)
		if (strcmp(a->name[i], b->name[i]) || a->value[i] != b->value[i])
			return false;
	return true;
}

int objects_settle(const struct objects *before, struct objects *after, int tries, long ms)
{
	struct timespec pause = { ms / 1000, (ms % 1000) * 1000000L };

	for (int i = 0; i < tries; i++) {
		struct timespec left = pause;

		if (i)
			while (nanosleep(&left, &left) && errno == EINTR)
				;
		if (objects_take(after))
			return -1;
		if (objects_same(before, after))
			return 1;
	}
	return 0;
}

void objects_print(const char *prefix, const struct objects *before, const struct objects *after)
{
	for (int i = 0; i < before->n; i++) {
		long long now = objects_get(after, before->name[i]);

		printf("%s %-20s %10lld -> %10lld%s\n", prefix, before->name[i], before->value[i],
		       now, now == before->value[i] ? "" : "   DIFFERS");
	}
}
