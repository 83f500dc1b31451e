/*
 * stress threads [N [B]]: N threads (default 10,000) created and joined in
 * batches of B (default 2,000) alive at once. Each thread checks in (a
 * counter under a mutex), waits for its batch's release, and returns a
 * value made from its number, which the join checks.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stress.h"

#define STACK (64 * 1024)

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t arrived_cv = PTHREAD_COND_INITIALIZER, release_cv = PTHREAD_COND_INITIALIZER;
static long arrived, generation;

static void *worker(void *arg)
{
	long gen;

	pthread_mutex_lock(&lock);
	gen = generation;
	arrived++;
	pthread_cond_signal(&arrived_cv);
	while (generation == gen)
		pthread_cond_wait(&release_cv, &lock);
	pthread_mutex_unlock(&lock);
	return (void *)((uintptr_t)arg * 3 + 1);
}

/*
 * Creates and joins n threads, batch at a time; returns how many were
 * joined with the right value. *created, *most and *err say how it went.
 */
static long run(long n, long batch, pthread_t *tid, pthread_attr_t *attr, long *created_out,
		long *most_threads, int *err_out)
{
	long created = 0, joined = 0;
	struct objects now = { 0 };
	int err = 0;

	while (created < n && !err) {
		long k = 0, want = n - created < batch ? n - created : batch;

		arrived = 0;
		for (; k < want; k++) {
			err = pthread_create(&tid[k], attr, worker, (void *)(uintptr_t)(created + k));
			if (err)
				break;
		}
		pthread_mutex_lock(&lock);
		while (arrived < k)
			pthread_cond_wait(&arrived_cv, &lock);
		pthread_mutex_unlock(&lock);
		if (objects_take(&now))
			err = EIO;
		if (objects_get(&now, "threads") > *most_threads)
			*most_threads = objects_get(&now, "threads");
		pthread_mutex_lock(&lock);
		generation++;
		pthread_cond_broadcast(&release_cv);
		pthread_mutex_unlock(&lock);
		for (long i = 0; i < k; i++) {
			void *ret;

			if (pthread_join(tid[i], &ret) == 0 &&
			    ret == (void *)((uintptr_t)(created + i) * 3 + 1))
				joined++;
		}
		created += k;
	}
	*created_out = created;
	*err_out = err;
	return joined;
}

int probe_threads(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 10000;
	long batch = argc > 2 ? strtol(argv[2], NULL, 10) : 2000, created = 0, joined = 0;
	long most_threads = 0;
	pthread_t *tid;
	pthread_attr_t attr;
	static struct objects before; /* not on the stack the probe counts */
	int err = 0;

	if (n <= 0 || batch <= 0 || !(tid = calloc((size_t)batch, sizeof(*tid))))
		return probe_fail("threads", "bad arguments");
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, STACK);
	/*
	 * A warm-up batch first: musl sets up its thread machinery once, and
	 * the page tables under the batch's stacks stay with the address space.
	 */
	if (run(batch < n ? batch : n, batch, tid, &attr, &created, &most_threads, &err) !=
	    (batch < n ? batch : n))
		return probe_fail("threads", "warm-up batch failed");
	most_threads = 0;
	sleep_ms(20);
	if (objects_take(&before))
		return 1;
	printf("stress threads: %ld threads in batches of %ld; free_pages %lld\n", n, batch,
	       objects_get(&before, "free_pages"));
	joined = run(n, batch, tid, &attr, &created, &most_threads, &err);
	printf("stress threads: %ld created, %ld joined; most threads at once (kernel count) %ld\n",
	       created, joined, most_threads);
	if (err)
		printf("stress threads: pthread_create %ld: %s\n", created + 1, strerror(err));
	if (!objects_back("threads", &before))
		return probe_fail("threads", "counts are not back");
	if (err || created != n || joined != n)
		return probe_fail("threads", "%ld of %ld created, %ld joined", created, n, joined);
	printf("stress threads: PASS: %ld threads created and joined, %ld at once\n", n,
	       batch < n ? batch : n);
	return 0;
}
