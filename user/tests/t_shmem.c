/*
 * t_shmem: shared anonymous mappings (mmap MAP_SHARED | MAP_ANONYMOUS):
 * writes seen across fork both ways, pages first touched after the fork,
 * areas split by munmap and mprotect still sharing the right pages,
 * MADV_DONTNEED keeping the contents, and Linux's errors on bad
 * arguments. Runs on Linux and Fulcrum.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../common/child.h"
#include "../common/objects.h"
#include "../common/rawsys.h"
#include "../common/report.h"

#define PG	   4096L
#define FUTEX_WAIT 0 /* Linux's values (musl has no linux/futex.h) */
#define FUTEX_WAKE 1
#define RW	   (PROT_READ | PROT_WRITE)

static char *map_shared(long len)
{
	long r = raw6(SYS_mmap, 0, len, RW, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return r < 0 && r > -4096 ? NULL : (char *)r;
}

/* The child writes 'c' + page number at the start of each of the pages given in a bit mask. */
struct writes {
	char *base;
	unsigned int pages;
};

static int child_writes(void *arg)
{
	const struct writes *w = arg;

	for (int i = 0; i < 32; i++)
		if (w->pages & (1u << i))
			w->base[i * PG] = (char)('c' + i);
	return 0;
}

static const char *exited_0(int status)
{
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? NULL : child_describe(status);
}

static const char *fork_both_ways(void)
{
	char *p = map_shared(2 * PG);
	struct writes w;
	const char *why;

	EXPECT(p, "mmap failed");
	p[0] = 'p'; /* made before the fork */
	w = (struct writes){ p, 3 };
	why = exited_0(child_run(child_writes, &w));
	EXPECT(!why, "child: %s", why);
	EXPECT_EQ(p[0], 'c');	   /* a page the parent had made */
	EXPECT_EQ(p[PG], 'c' + 1); /* a page the child made */
	EXPECT_EQ(munmap(p, 2 * PG), 0);
	return NULL;
}

static int child_reads(void *arg)
{
	return ((char *)arg)[0] == 'p' ? 0 : 1;
}

static const char *parent_write_seen(void)
{
	char *p = map_shared(PG);
	const char *why;

	EXPECT(p, "mmap failed");
	p[0] = 'p';
	why = exited_0(child_run(child_reads, p));
	EXPECT(!why, "child: %s", why);
	EXPECT_EQ(munmap(p, PG), 0);
	return NULL;
}

static const char *private_stays_private(void)
{
	char *p = mmap(NULL, PG, RW, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct writes w = { p, 1 };
	const char *why;

	EXPECT(p != MAP_FAILED, "mmap: %s", strerror(errno));
	p[0] = 'p';
	why = exited_0(child_run(child_writes, &w));
	EXPECT(!why, "child: %s", why);
	EXPECT_EQ(p[0], 'p');
	EXPECT_EQ(munmap(p, PG), 0);
	return NULL;
}

/* Pages 0 and 2 of a 4-page area around a hole at 1 and a read-only page 3. */
static const char *split_areas(void)
{
	char *p = map_shared(4 * PG);
	struct writes w;
	const char *why;

	EXPECT(p, "mmap failed");
	for (int i = 0; i < 4; i++)
		p[i * PG] = 'p';
	EXPECT_EQ(munmap(p + PG, PG), 0);
	EXPECT_EQ(mprotect(p + 3 * PG, PG, PROT_READ), 0);
	w = (struct writes){ p, 1 | 4 };
	why = exited_0(child_run(child_writes, &w));
	EXPECT(!why, "child: %s", why);
	EXPECT_EQ(p[0], 'c');
	EXPECT_EQ(p[2 * PG], 'c' + 2);
	EXPECT_EQ(p[3 * PG], 'p');
	EXPECT_EQ(munmap(p, 4 * PG), 0);
	return NULL;
}

static const char *dontneed_keeps(void)
{
	char *p = map_shared(PG);

	EXPECT(p, "mmap failed");
	p[10] = 'x';
	EXPECT_EQ(raw3(SYS_madvise, p, PG, MADV_DONTNEED), 0);
	EXPECT_EQ(p[10], 'x');
	EXPECT_ERR(raw3(SYS_madvise, p, PG, MADV_FREE), EINVAL);
	EXPECT_EQ(munmap(p, PG), 0);
	return NULL;
}

/* A child of a child still shares the pages, and they outlive the area that made them. */
static int grandchild_writes(void *arg)
{
	struct writes w = { arg, 1 };
	int status = child_run(child_writes, &w);

	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

static const char *outlives_unmap(void)
{
	char *p = map_shared(PG);
	const char *why;

	EXPECT(p, "mmap failed");
	why = exited_0(child_run(grandchild_writes, p));
	EXPECT(!why, "child: %s", why);
	EXPECT_EQ(p[0], 'c');
	EXPECT_EQ(munmap(p, PG), 0);
	return NULL;
}

/* 16 shared pages, touched by this process and by a child, then unmapped. */
static const char *share_and_drop(long long *during)
{
	char *p = map_shared(16 * PG);
	struct writes w;
	const char *why;
	struct objects o;

	EXPECT(p, "mmap failed");
	for (int i = 0; i < 8; i++)
		p[i * PG] = 'p';
	w = (struct writes){ p, 0xff00 };
	why = exited_0(child_run(child_writes, &w));
	EXPECT(!why, "child: %s", why);
	EXPECT(!objects_take(&o), "cannot read %s", OBJECTS_PATH);
	*during = objects_get(&o, "user_frames");
	EXPECT_EQ(munmap(p, 16 * PG), 0);
	return NULL;
}

/*
 * Fulcrum: the object's pages are counted once however many processes
 * map them, and all come back with the last mapping. Linux has no such
 * count; there the case only notes it.
 */
static const char *memory_given_back(void)
{
	struct objects before, after;
	long long during;
	const char *why;

	if (access(OBJECTS_PATH, R_OK)) {
		report_note("no %s (Linux): the counts are Fulcrum's", OBJECTS_PATH);
		return NULL;
	}
	why = share_and_drop(&during); /* once first, so this process's own pages are made */
	EXPECT(!why, "%s", why);
	EXPECT(!objects_take(&before), "cannot read %s", OBJECTS_PATH);
	why = share_and_drop(&during);
	EXPECT(!why, "%s", why);
	EXPECT(!objects_take(&after), "cannot read %s", OBJECTS_PATH);
	EXPECT(during == objects_get(&before, "user_frames") + 16,
	       "user_frames %lld with 16 shared pages, %lld before", during,
	       objects_get(&before, "user_frames"));
	EXPECT(objects_get(&after, "user_frames") == objects_get(&before, "user_frames"),
	       "user_frames %lld -> %lld after munmap", objects_get(&before, "user_frames"),
	       objects_get(&after, "user_frames"));
	return NULL;
}

/* The child waits on a shared futex word; word[1] says it is about to. */
static int child_futex_waits(void *arg)
{
	volatile int *word = arg;
	struct timespec ts = { 0, 100 * 1000 * 1000 }; /* never stuck if no wake comes */

	word[1] = 1;
	while (word[0] == 0)
		raw6(SYS_futex, word, FUTEX_WAIT, 0, &ts, 0, 0);
	return 0;
}

/* A process-shared futex word (FUTEX_WAIT without FUTEX_PRIVATE_FLAG) meets across fork. */
static const char *futex_across_fork(void)
{
	volatile int *word = (volatile int *)map_shared(PG);
	int pid, woken = 0;
	const char *why;

	EXPECT(word, "mmap failed");
	pid = child_start(child_futex_waits, (void *)word);
	EXPECT(pid > 0, "fork: %d", pid);
	while (word[1] == 0)
		usleep(1000);
	/* Wake until the child is found sleeping on the word (it may not be there yet). */
	for (int i = 0; i < 2000 && woken == 0; i++) {
		usleep(1000);
		woken = (int)raw6(SYS_futex, word, FUTEX_WAKE, 1, 0, 0, 0);
	}
	word[0] = 1;
	raw6(SYS_futex, word, FUTEX_WAKE, 1, 0, 0, 0);
	why = exited_0(child_wait(pid));
	EXPECT(!why, "child: %s", why);
	EXPECT_EQ(woken, 1);
	EXPECT_EQ(munmap((void *)word, PG), 0);
	return NULL;
}

static const char *bad_arguments(void)
{
	int anon = MAP_SHARED | MAP_ANONYMOUS;

	EXPECT_ERR(raw6(SYS_mmap, 0, 0, RW, anon, -1, 0), EINVAL);
	EXPECT_ERR(raw6(SYS_mmap, 0, PG, RW, MAP_SHARED_VALIDATE | MAP_ANONYMOUS, -1, 0), EINVAL);
	EXPECT_ERR(raw6(SYS_mmap, 0, PG, RW, anon | MAP_GROWSDOWN, -1, 0), EINVAL);
	EXPECT_ERR(raw6(SYS_mmap, 0, PG, RW, anon, -1, 100), EINVAL);
	EXPECT_ERR(raw6(SYS_mmap, 123, PG, RW, anon | MAP_FIXED, -1, 0), EINVAL);
	EXPECT_ERR(raw6(SYS_mmap, 0, 1L << 46, RW, anon, -1, 0), ENOMEM);
	EXPECT_ERR(raw6(SYS_mmap, 0, PG, RW, MAP_SHARED, -1, 0), EBADF);
	return NULL;
}

static const struct test_case cases[] = {
	{ "fork_both_ways", fork_both_ways },
	{ "parent_write_seen", parent_write_seen },
	{ "private_stays_private", private_stays_private },
	{ "split_areas", split_areas },
	{ "dontneed_keeps", dontneed_keeps },
	{ "outlives_unmap", outlives_unmap },
	{ "futex_across_fork", futex_across_fork },
	{ "memory_given_back", memory_given_back },
	{ "bad_arguments", bad_arguments },
};

int main(int argc, char **argv)
{
	(void)argc;
	test_self_init(argv[0], "t_shmem");
	report_run_all(cases, REPORT_NCASES(cases));
	return report_done("t_shmem");
}
