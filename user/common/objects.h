/*
 * Reading /proc/fulcrum/objects, the kernel's counts of free pages, heap
 * objects, processes, tasks and the rest, and telling whether two readings
 * agree: how teardown and the stress probes check that the kernel gave
 * everything back. Fulcrum-only: Linux has no such file.
 */
#ifndef USER_COMMON_OBJECTS_H
#define USER_COMMON_OBJECTS_H

#include <stdbool.h>

#define OBJECTS_PATH	   "/proc/fulcrum/objects"
#define OBJECTS_MAX_COUNTS 32

/* The file at one moment: its "name value" lines, in the file's order. */
struct objects {
	int n;
	char name[OBJECTS_MAX_COUNTS][32];
	long long value[OBJECTS_MAX_COUNTS];
};

/* Reads the file; 0, or -1 (after a line on stdout saying why) if it cannot. */
int objects_take(struct objects *o);

/* One count by name, or -1 if the reading has none of that name. */
long long objects_get(const struct objects *o, const char *name);

/* Whether two readings have the same names with the same values. */
bool objects_same(const struct objects *a, const struct objects *b);

/*
 * Reads the file into *after up to tries times, ms milliseconds apart (the
 * first at once), until it agrees with *before: tasks go after their last
 * switch and init reaps orphans, so the counts settle a moment after the
 * work ends. Returns 1 if they agreed, 0 if not, -1 if the file could not
 * be read.
 */
int objects_settle(const struct objects *before, struct objects *after, int tries, long ms);

/*
 * Prints "<prefix> <name> <before> -> <after>" for each count of *before,
 * with "   DIFFERS" after those that changed.
 */
void objects_print(const char *prefix, const struct objects *before, const struct objects *after);

#endif
