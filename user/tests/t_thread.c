/*
 * t_thread: threads — pthreads (clone with CLONE_VM, CLONE_THREAD,
 * CLONE_SETTLS, CLONE_PARENT_SETTID, CLONE_CHILD_CLEARTID), a raw clone
 * that checks each of those flags, TLS per thread, mutex contention,
 * condition variables, barriers, joins, raw futex wait/wake and their
 * errors, signals to one thread, and a process that outlives its main
 * thread.  Runs on Linux and Fulcrum.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "../common/child.h"
#include "../common/rawsys.h"
#include "../common/report.h"

#define FUTEX_WAIT    0
#define FUTEX_WAKE    1
#define FUTEX_PRIVATE 128
#define NSEC_PER_MSEC 1000000l

static long futex(volatile int *uaddr, int op, int val, const struct timespec *timeout)
{
	return raw4(SYS_futex, uaddr, op, val, timeout);
}

static long mono_ns(void)
{
	struct timespec ts;

	raw2(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000l + ts.tv_nsec;
}

static void sleep_ms(long ms)
{
	raw2(SYS_nanosleep, TS(0, ms * NSEC_PER_MSEC), 0);
}

/* ------------------------------------------------------------ pthread basics */

#define RUSAGE_SLEEPS 5

/* Sleeps a few times (each a voluntary switch) and returns its own count. */
static void *sleeper_switches(void *arg)
{
	struct rusage ru;

	(void)arg;
	for (int i = 0; i < RUSAGE_SLEEPS; i++)
		sleep_ms(1);
	if (raw2(SYS_getrusage, RUSAGE_THREAD, &ru) != 0)
		return (void *)-1l;
	return (void *)ru.ru_nvcsw;
}

static const char *rusage_keeps_exited_threads(void)
{
	struct rusage before, after;
	pthread_t t;
	void *ret;

	EXPECT_EQ(raw2(SYS_getrusage, RUSAGE_SELF, &before), 0);
	EXPECT_EQ(pthread_create(&t, NULL, sleeper_switches, NULL), 0);
	EXPECT_EQ(pthread_join(t, &ret), 0);
	/* >= 1, not RUSAGE_SLEEPS: a sleep whose time is up before it blocks does not switch */
	EXPECT((long)ret >= 1, "the thread counted %ld voluntary switches", (long)ret);
	EXPECT_EQ(raw2(SYS_getrusage, RUSAGE_SELF, &after), 0);
	/* the exited thread's switches stay in the process's total */
	EXPECT(after.ru_nvcsw - before.ru_nvcsw >= (long)ret,
	       "RUSAGE_SELF grew by %ld, the thread had %ld", after.ru_nvcsw - before.ru_nvcsw,
	       (long)ret);
	return NULL;
}

static void *double_it(void *arg)
{
	return (void *)((uintptr_t)arg * 2);
}

static const char *create_join(void)
{
	pthread_t t[4];
	void *ret;

	for (uintptr_t i = 0; i < 4; i++)
		EXPECT_EQ(pthread_create(&t[i], NULL, double_it, (void *)(i + 10)), 0);
	for (uintptr_t i = 0; i < 4; i++) {
		EXPECT_EQ(pthread_join(t[i], &ret), 0);
		EXPECT((uintptr_t)ret == (i + 10) * 2, "thread %lu returned %p", (unsigned long)i,
		       ret);
	}
	return NULL;
}

#define NIDS 8
static long id_tid[NIDS], id_pid[NIDS];

static void *record_ids(void *arg)
{
	int i = (int)(uintptr_t)arg;

	id_tid[i] = raw0(SYS_gettid);
	id_pid[i] = raw0(SYS_getpid);
	return NULL;
}

static const char *thread_ids(void)
{
	pthread_t t[NIDS];
	long me = raw0(SYS_getpid);

	for (int i = 0; i < NIDS; i++)
		EXPECT_EQ(pthread_create(&t[i], NULL, record_ids, (void *)(uintptr_t)i), 0);
	for (int i = 0; i < NIDS; i++)
		EXPECT_EQ(pthread_join(t[i], NULL), 0);
	for (int i = 0; i < NIDS; i++) {
		EXPECT(id_pid[i] == me, "thread %d: getpid %ld, want %ld", i, id_pid[i], me);
		EXPECT(id_tid[i] > 0 && id_tid[i] != me, "thread %d: gettid %ld", i, id_tid[i]);
		for (int j = 0; j < i; j++)
			EXPECT(id_tid[i] != id_tid[j], "threads %d and %d share tid %ld", i, j,
			       id_tid[i]);
	}
	return NULL;
}

static __thread long tls_value = 1234;
static __thread char tls_bss[32];

static void *tls_worker(void *arg)
{
	long id = (long)(uintptr_t)arg;

	if (tls_value != 1234 || tls_bss[5] != 0)
		return (void *)1;
	tls_value = id;
	tls_bss[5] = (char)id;
	for (int i = 0; i < 20; i++) {
		raw0(SYS_sched_yield);
		if (tls_value != id || tls_bss[5] != (char)id)
			return (void *)2;
	}
	return NULL;
}

static const char *tls_per_thread(void)
{
	pthread_t t[6];
	void *ret;

	tls_value = 99;
	for (int i = 0; i < 6; i++)
		EXPECT_EQ(pthread_create(&t[i], NULL, tls_worker, (void *)(uintptr_t)(i + 1)), 0);
	for (int i = 0; i < 6; i++) {
		EXPECT_EQ(pthread_join(t[i], &ret), 0);
		EXPECT(ret == NULL, "thread %d: TLS %s", i,
		       ret == (void *)1 ? "not initialised from the template" : "overwritten");
	}
	EXPECT(tls_value == 99, "main thread's TLS changed to %ld", tls_value);
	tls_value = 1234;
	return NULL;
}

static int shared_fd = -1;

static void *open_pipe(void *arg)
{
	int *p = arg;

	if (raw2(SYS_pipe2, p, 0) < 0)
		return (void *)1;
	shared_fd = p[1];
	return NULL;
}

static const char *threads_share_fds(void)
{
	pthread_t t;
	int p[2];
	char c;

	EXPECT_EQ(pthread_create(&t, NULL, open_pipe, p), 0);
	EXPECT_EQ(pthread_join(t, NULL), 0);
	/* descriptors opened by a thread are the process's */
	EXPECT_EQ(raw3(SYS_write, shared_fd, "t", 1), 1);
	EXPECT_EQ(raw3(SYS_read, p[0], &c, 1), 1);
	raw1(SYS_close, p[0]);
	raw1(SYS_close, p[1]);
	return NULL;
}

/* ------------------------------------------------------------ synchronisation */

#define MUTEX_THREADS 8
#define MUTEX_ROUNDS  500

static pthread_mutex_t counter_lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;

static void *increment(void *arg)
{
	(void)arg;
	for (int i = 0; i < MUTEX_ROUNDS; i++) {
		pthread_mutex_lock(&counter_lock);
		long v = counter;
		/* yielding while holding the lock forces contention: waiters sleep in futex */
		if (i % 16 == 0)
			raw0(SYS_sched_yield);
		counter = v + 1;
		pthread_mutex_unlock(&counter_lock);
	}
	return NULL;
}

static const char *mutex_contention(void)
{
	pthread_t t[MUTEX_THREADS];

	counter = 0;
	for (int i = 0; i < MUTEX_THREADS; i++)
		EXPECT_EQ(pthread_create(&t[i], NULL, increment, NULL), 0);
	for (int i = 0; i < MUTEX_THREADS; i++)
		EXPECT_EQ(pthread_join(t[i], NULL), 0);
	EXPECT(counter == MUTEX_THREADS * MUTEX_ROUNDS, "counter %ld, want %d (lost updates)",
	       counter, MUTEX_THREADS * MUTEX_ROUNDS);
	return NULL;
}

/* A bounded queue: producers wait when full, consumers when empty. */
#define QCAP	  4
#define PRODUCERS 3
#define CONSUMERS 3
#define ITEMS	  200 /* per producer */

static struct {
	pthread_mutex_t lock;
	pthread_cond_t not_full, not_empty;
	int buf[QCAP], head, len, done;
} q = { .lock = PTHREAD_MUTEX_INITIALIZER,
	.not_full = PTHREAD_COND_INITIALIZER,
	.not_empty = PTHREAD_COND_INITIALIZER };

static void *producer(void *arg)
{
	int base = (int)(uintptr_t)arg * ITEMS;

	for (int i = 1; i <= ITEMS; i++) {
		pthread_mutex_lock(&q.lock);
		while (q.len == QCAP)
			pthread_cond_wait(&q.not_full, &q.lock);
		q.buf[(q.head + q.len++) % QCAP] = base + i;
		pthread_cond_signal(&q.not_empty);
		pthread_mutex_unlock(&q.lock);
	}
	return NULL;
}

static void *consumer(void *arg)
{
	long sum = 0;

	(void)arg;
	for (;;) {
		pthread_mutex_lock(&q.lock);
		while (q.len == 0 && !q.done)
			pthread_cond_wait(&q.not_empty, &q.lock);
		if (q.len == 0) {
			pthread_mutex_unlock(&q.lock);
			return (void *)sum;
		}
		sum += q.buf[q.head];
		q.head = (q.head + 1) % QCAP;
		q.len--;
		pthread_cond_signal(&q.not_full);
		pthread_mutex_unlock(&q.lock);
	}
}

static const char *condvar_queue(void)
{
	pthread_t p[PRODUCERS], c[CONSUMERS];
	long total = 0, want = 0;
	void *ret;

	for (int i = 0; i < PRODUCERS; i++)
		for (int k = 1; k <= ITEMS; k++)
			want += i * ITEMS + k;
	for (int i = 0; i < CONSUMERS; i++)
		EXPECT_EQ(pthread_create(&c[i], NULL, consumer, NULL), 0);
	for (int i = 0; i < PRODUCERS; i++)
		EXPECT_EQ(pthread_create(&p[i], NULL, producer, (void *)(uintptr_t)i), 0);
	for (int i = 0; i < PRODUCERS; i++)
		EXPECT_EQ(pthread_join(p[i], NULL), 0);
	pthread_mutex_lock(&q.lock);
	q.done = 1;
	/* every consumer may be asleep: wake them all */
	pthread_cond_broadcast(&q.not_empty);
	pthread_mutex_unlock(&q.lock);
	for (int i = 0; i < CONSUMERS; i++) {
		EXPECT_EQ(pthread_join(c[i], &ret), 0);
		total += (long)ret;
	}
	EXPECT(total == want, "consumed sum %ld, want %ld", total, want);
	return NULL;
}

#define BARRIER_THREADS 4
#define BARRIER_ROUNDS	50

static pthread_barrier_t barrier;
static volatile int phase_count[BARRIER_ROUNDS];

static void *barrier_worker(void *arg)
{
	(void)arg;
	for (int r = 0; r < BARRIER_ROUNDS; r++) {
		__atomic_add_fetch(&phase_count[r], 1, __ATOMIC_SEQ_CST);
		pthread_barrier_wait(&barrier);
		/* nobody passes the barrier before all arrived */
		if (__atomic_load_n(&phase_count[r], __ATOMIC_SEQ_CST) != BARRIER_THREADS)
			return (void *)1;
		pthread_barrier_wait(&barrier);
	}
	return NULL;
}

static const char *barrier_rounds(void)
{
	pthread_t t[BARRIER_THREADS];
	void *ret;

	EXPECT_EQ(pthread_barrier_init(&barrier, NULL, BARRIER_THREADS), 0);
	for (int i = 0; i < BARRIER_THREADS; i++)
		EXPECT_EQ(pthread_create(&t[i], NULL, barrier_worker, NULL), 0);
	for (int i = 0; i < BARRIER_THREADS; i++) {
		EXPECT_EQ(pthread_join(t[i], &ret), 0);
		EXPECT(ret == NULL, "a thread passed the barrier early");
	}
	pthread_barrier_destroy(&barrier);
	return NULL;
}

static volatile int slow_done;

static void *slow_thread(void *arg)
{
	(void)arg;
	sleep_ms(20);
	slow_done = 1;
	return (void *)7;
}

static const char *join_waits(void)
{
	pthread_t t;
	void *ret;

	/* joining a running thread sleeps until its exit clears the tid (CLONE_CHILD_CLEARTID) */
	slow_done = 0;
	EXPECT_EQ(pthread_create(&t, NULL, slow_thread, NULL), 0);
	EXPECT_EQ(pthread_join(t, &ret), 0);
	EXPECT(slow_done == 1, "join returned before the thread finished");
	EXPECT(ret == (void *)7, "join value %p", ret);
	/* joining one that is long gone */
	EXPECT_EQ(pthread_create(&t, NULL, double_it, (void *)4), 0);
	sleep_ms(10);
	EXPECT_EQ(pthread_join(t, &ret), 0);
	EXPECT(ret == (void *)8, "join value %p", ret);
	return NULL;
}

static const char *many_threads(void)
{
	/* thread creation and teardown, over and over */
	for (int round = 0; round < 5; round++) {
		pthread_t t[16];
		void *ret;
		for (uintptr_t i = 0; i < 16; i++)
			EXPECT_EQ(pthread_create(&t[i], NULL, double_it, (void *)i), 0);
		for (uintptr_t i = 0; i < 16; i++) {
			EXPECT_EQ(pthread_join(t[i], &ret), 0);
			EXPECT((uintptr_t)ret == 2 * i, "round %d thread %lu", round,
			       (unsigned long)i);
		}
	}
	return NULL;
}

/* ------------------------------------------------------------ raw clone */

/*
 * long raw_clone(flags, stack_top, ptid, ctid, tls, fn, arg): the clone
 * system call with the child running fn(arg) on stack_top and then
 * exiting the thread with fn's result.  The child touches no libc state.
 */
long raw_clone(unsigned long flags, void *stack_top, int *ptid, int *ctid, void *tls,
	       int (*fn)(void *), void *arg);
__asm__(".text\n"
	".globl raw_clone\n"
	".type raw_clone, @function\n"
	"raw_clone:\n"
	"	mov 8(%rsp), %rax\n" /* arg, the 7th argument */
	"	and $-16, %rsi\n"
	"	sub $16, %rsi\n"
	"	mov %r9, 0(%rsi)\n" /* fn and arg on the child's stack */
	"	mov %rax, 8(%rsi)\n"
	"	mov %rcx, %r10\n"
	"	mov $56, %eax\n" /* SYS_clone(flags, stack, ptid, ctid, tls) */
	"	syscall\n"
	"	test %rax, %rax\n"
	"	jnz 1f\n"
	"	xor %ebp, %ebp\n"
	"	pop %rax\n"
	"	pop %rdi\n"
	"	call *%rax\n"
	"	mov %eax, %edi\n"
	"	mov $60, %eax\n" /* SYS_exit: this thread only */
	"	syscall\n"
	"	hlt\n"
	"1:	ret\n"
	".size raw_clone, .-raw_clone\n");

#define CLONE_THREAD_FLAGS                                                                  \
	(CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM | \
	 CLONE_SETTLS | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID)

static char clone_stack[65536] __attribute__((aligned(16)));
static char spare_stack[16384] __attribute__((aligned(16)));
/* The clone child's TLS block: %fs:0 points at itself, %fs:8 holds a marker. */
static unsigned long clone_tls[64];
static volatile long seen_tid, seen_pid, seen_marker;
static volatile int ptid_word, ctid_word;

static int clone_child(void *arg)
{
	unsigned long marker;

	__asm__ volatile("mov %%fs:8, %0" : "=r"(marker));
	seen_marker = (long)marker;
	seen_tid = raw0(SYS_gettid);
	seen_pid = raw0(SYS_getpid);
	return (int)(uintptr_t)arg;
}

static const char *raw_clone_flags(void)
{
	clone_tls[0] = (unsigned long)clone_tls;
	clone_tls[1] = 0xc10e7151ul;
	seen_tid = seen_pid = seen_marker = 0;
	ptid_word = 0;
	ctid_word = -1;
	long tid = raw_clone(CLONE_THREAD_FLAGS, clone_stack + sizeof(clone_stack),
			     (int *)&ptid_word, (int *)&ctid_word, clone_tls, clone_child, (void *)0);
	EXPECT(tid > 0, "clone = %s", report_ret(tid));
	/* CLONE_PARENT_SETTID: written before clone returns in the parent */
	EXPECT(ptid_word == tid, "parent tid word %d, want %ld", ptid_word, tid);
	/* CLONE_CHILD_CLEARTID: zeroed and futex-woken when the thread exits */
	int waits = 0;
	for (int v; (v = ctid_word) != 0 && waits < 1000; waits++)
		futex(&ctid_word, FUTEX_WAIT, v, TS(1, 0));
	EXPECT(ctid_word == 0, "child tid word never cleared");
	EXPECT(seen_tid == tid, "child's gettid %ld, clone returned %ld", seen_tid, tid);
	EXPECT(seen_pid == raw0(SYS_getpid), "CLONE_THREAD child's getpid %ld", seen_pid);
	EXPECT(seen_marker == 0xc10e7151l, "CLONE_SETTLS: child's %%fs:8 = %#lx", seen_marker);
	EXPECT(tls_value == 1234, "the parent's TLS changed");
	return NULL;
}

static const char *clone_invalid_flags(void)
{
	/* a valid stack and function anyway, in case a kernel wrongly accepts them */
	long r = raw_clone(CLONE_VM | CLONE_THREAD, spare_stack + sizeof(spare_stack), NULL, NULL,
			   NULL, clone_child, NULL);
	EXPECT_ERR(r, EINVAL);
	r = raw_clone(CLONE_SIGHAND | SIGCHLD, spare_stack + sizeof(spare_stack), NULL, NULL, NULL,
		      clone_child, NULL);
	if (r > 0)
		child_wait((int)r);
	EXPECT_ERR(r, EINVAL);
	return NULL;
}

/* ------------------------------------------------------------ raw futex */

static const char *futex_wrong_value(void)
{
	volatile int word = 5;

	EXPECT_ERR(futex(&word, FUTEX_WAIT, 4, NULL), EAGAIN);
	EXPECT_ERR(futex(&word, FUTEX_WAIT | FUTEX_PRIVATE, 6, NULL), EAGAIN);
	return NULL;
}

static const char *futex_timeout(void)
{
	volatile int word = 0;
	long t0 = mono_ns();

	EXPECT_ERR(futex(&word, FUTEX_WAIT | FUTEX_PRIVATE, 0, TS(0, 10 * NSEC_PER_MSEC)), ETIMEDOUT);
	long waited = mono_ns() - t0;
	EXPECT(waited >= 10 * NSEC_PER_MSEC, "timed out after %ld ns, before 10 ms", waited);
	EXPECT_ERR(futex(&word, FUTEX_WAIT, 0, TS(0, 1000)), ETIMEDOUT);
	EXPECT_ERR(futex(&word, FUTEX_WAIT, 0, TS(0, 0)), ETIMEDOUT);
	return NULL;
}

static const char *futex_wake_nobody(void)
{
	volatile int word = 0;

	EXPECT_EQ(futex(&word, FUTEX_WAKE, 1, NULL), 0);
	EXPECT_EQ(futex(&word, FUTEX_WAKE | FUTEX_PRIVATE, 100, NULL), 0);
	return NULL;
}

static const char *futex_errors(void)
{
	static int words[2];
	volatile int *odd = (volatile int *)((char *)words + 1);

	EXPECT_ERR(futex(odd, FUTEX_WAIT, 0, NULL), EINVAL);
	EXPECT_ERR(futex(odd, FUTEX_WAKE, 1, NULL), EINVAL);
	EXPECT_ERR(futex(BAD_PTR_LOW, FUTEX_WAIT | FUTEX_PRIVATE, 0, NULL), EFAULT);
	EXPECT_ERR(futex(BAD_PTR_KERNEL, FUTEX_WAIT, 0, NULL), EFAULT);
	EXPECT_ERR(futex(&words[0], FUTEX_WAIT, 0, TS(0, 1000000000l)), EINVAL);
	EXPECT_ERR(futex(&words[0], FUTEX_WAIT, 0, TS(-1, 0)), EINVAL);
	EXPECT_ERR(futex(&words[0], FUTEX_WAIT, 0, BAD_PTR_LOW), EFAULT);
	EXPECT_ERR(futex(&words[0], 99, 0, NULL), ENOSYS);
	return NULL;
}

static volatile int wake_word;
static volatile long wait_result = 1;

static void *futex_waiter(void *arg)
{
	(void)arg;
	wait_result = futex(&wake_word, FUTEX_WAIT | FUTEX_PRIVATE, 0, NULL);
	return NULL;
}

static const char *futex_wake_wakes(void)
{
	pthread_t t;
	long woken = 0;
	int tries;

	wake_word = 0;
	wait_result = 1;
	EXPECT_EQ(pthread_create(&t, NULL, futex_waiter, NULL), 0);
	/* the waiter may not be asleep yet: wake until the kernel reports one woken */
	for (tries = 0; tries < 5000 && woken == 0; tries++) {
		woken = futex(&wake_word, FUTEX_WAKE | FUTEX_PRIVATE, 1, NULL);
		if (!woken)
			sleep_ms(1);
	}
	if (woken != 1) {
		wake_word = 1; /* let a waiter that never slept leave via EAGAIN */
		futex(&wake_word, FUTEX_WAKE | FUTEX_PRIVATE, 1, NULL);
	}
	EXPECT_EQ(pthread_join(t, NULL), 0);
	EXPECT(woken == 1, "FUTEX_WAKE = %s after %d tries", report_ret(woken), tries);
	EXPECT(wait_result == 0, "the waiter's FUTEX_WAIT returned %s", report_ret(wait_result));
	return NULL;
}

/* ------------------------------------------------------------ signals and exits */

static volatile long handler_tid;
static volatile int handled;

static void on_usr1(int sig)
{
	(void)sig;
	handler_tid = raw0(SYS_gettid);
	handled = 1;
}

static volatile long target_tid;

static void *wait_for_signal(void *arg)
{
	(void)arg;
	target_tid = raw0(SYS_gettid);
	for (int i = 0; i < 5000 && !handled; i++)
		sleep_ms(1);
	return NULL;
}

static const char *tgkill_thread(void)
{
	struct sigaction sa;
	pthread_t t;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	handled = 0;
	handler_tid = target_tid = 0;
	EXPECT_EQ(pthread_create(&t, NULL, wait_for_signal, NULL), 0);
	while (!target_tid)
		raw0(SYS_sched_yield);
	long r = raw3(SYS_tgkill, raw0(SYS_getpid), target_tid, SIGUSR1);
	pthread_join(t, NULL);
	sa.sa_handler = SIG_DFL;
	sigaction(SIGUSR1, &sa, NULL);
	EXPECT_EQ(r, 0);
	EXPECT(handled, "handler never ran");
	EXPECT(handler_tid == target_tid, "handler ran in tid %ld, sent to %ld", handler_tid,
	       target_tid);
	return NULL;
}

static int last_thread_pipe[2];

static void *outlive_main(void *arg)
{
	char c;

	(void)arg;
	/* the main thread has exited; wait for the parent's go, then end the process */
	raw3(SYS_read, last_thread_pipe[0], &c, 1);
	raw1(SYS_exit_group, 5);
	return NULL;
}

static const char *main_thread_exits_first(void)
{
	int status;

	EXPECT_OK(raw2(SYS_pipe2, last_thread_pipe, 0));
	pid_t pid = fork();
	EXPECT(pid >= 0, "fork failed");
	if (pid == 0) {
		pthread_t t;
		if (pthread_create(&t, NULL, outlive_main, NULL))
			_exit(1);
		pthread_exit(NULL); /* SYS_exit for the main thread only */
	}
	sleep_ms(10);
	/* the process lives on in its other thread */
	long r = raw4(SYS_wait4, pid, &status, WNOHANG, 0);
	raw3(SYS_write, last_thread_pipe[1], "g", 1);
	status = child_wait(pid);
	raw1(SYS_close, last_thread_pipe[0]);
	raw1(SYS_close, last_thread_pipe[1]);
	EXPECT(r == 0, "wait4 WNOHANG = %s while a thread still ran", report_ret(r));
	EXPECT_EXITED(status, 5);
	return NULL;
}

static const struct test_case cases[] = {
	{ "create_join", create_join },
	{ "rusage_keeps_exited_threads", rusage_keeps_exited_threads },
	{ "thread_ids", thread_ids },
	{ "tls_per_thread", tls_per_thread },
	{ "threads_share_fds", threads_share_fds },
	{ "mutex_contention", mutex_contention },
	{ "condvar_queue", condvar_queue },
	{ "barrier_rounds", barrier_rounds },
	{ "join_waits", join_waits },
	{ "many_threads", many_threads },
	{ "raw_clone_flags", raw_clone_flags },
	{ "clone_invalid_flags", clone_invalid_flags },
	{ "futex_wrong_value", futex_wrong_value },
	{ "futex_timeout", futex_timeout },
	{ "futex_wake_nobody", futex_wake_nobody },
	{ "futex_errors", futex_errors },
	{ "futex_wake_wakes", futex_wake_wakes },
	{ "tgkill_thread", tgkill_thread },
	{ "main_thread_exits_first", main_thread_exits_first },
};

int main(int argc, char **argv)
{
	(void)argc;
	test_self_init(argv[0], "t_thread");
	report_run_all(cases, REPORT_NCASES(cases));
	return report_done("t_thread");
}
