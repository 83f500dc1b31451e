/*
 * In-kernel tests of the blocking paths the host tests cannot take
 * (`ktest=ipc_*`): kernel threads sleeping in pipe and socket reads and
 * writes and in poll, woken by each other through the real scheduler.
 *
 * - ipc_pipe_pingpong, ipc_socket_pingpong: a one-byte (pipe) or
 *   100-byte (socket, hackbench's message) round trip, 2,000 times; each
 *   side blocks in read until the other writes, and the wake-ups carry
 *   the sync hint.
 * - ipc_pipe_bulk, ipc_socket_bulk: 1 MiB through a full pipe or send
 *   buffer in odd-sized pieces, the writer blocking for room; the bytes
 *   arrive in order, then end of file when the writer closes.
 * - ipc_poll_timeout: poll on an empty pipe times out after its timeout,
 *   and returns early when another thread writes.
 */
#include <arch/time.h>

#include "fs/file.h"
#include "fs/iov_iter.h"
#include "ipc/pipe.h"
#include "ipc/poll.h"
#include "ipc/socket.h"
#include "ktest.h"
#include "lib/errno.h"
#include "mm/heap.h"
#include "sched/task.h"

#define PINGPONG_ROUNDS 2000
#define BULK_BYTES	(1024 * 1024)
#define MSG_SIZE	100

static long kread(struct file *f, void *buf, size_t n)
{
	struct iov_iter it;

	iov_iter_kernel(&it, buf, n);
	return f->ops->read(f, &it);
}

static long kwrite(struct file *f, const void *buf, size_t n)
{
	struct iov_iter it;

	iov_iter_kernel(&it, (void *)buf, n);
	return f->ops->write(f, &it);
}

/* Reads exactly n bytes (a stream may return them in pieces); false on error or early EOF. */
static bool read_full(struct file *f, char *buf, size_t n)
{
	while (n) {
		long got = kread(f, buf, n);

		if (got <= 0)
			return false;
		buf += got;
		n -= (size_t)got;
	}
	return true;
}

/* ---------------------------------------------------------------- ping-pong */

struct pong {
	struct file *in, *out;
	size_t msg;
	int errors;
	u64 sync_wakeups;
};

/* Echoes every message back until the input ends. */
static void pong_thread(void *arg)
{
	struct pong *p = arg;
	char buf[MSG_SIZE];

	for (int i = 0; i < PINGPONG_ROUNDS; i++) {
		if (!read_full(p->in, buf, p->msg) || buf[0] != (char)i ||
		    kwrite(p->out, buf, p->msg) != (long)p->msg) {
			p->errors++;
			break;
		}
	}
	p->sync_wakeups = current_task()->stats.nr_wakeups_sync;
}

/* Runs the ping side over (to, from) against a pong thread over (p->in, p->out). */
static int pingpong(struct file *to, struct file *from, struct pong *p)
{
	struct task *t = kthread_create(pong_thread, p, "ktest-pong", 0);
	char buf[MSG_SIZE] = { 0 };
	u64 t0 = arch_clock_ns();
	int errors = 0;

	KTEST_EXPECT(t);
	for (int i = 0; i < PINGPONG_ROUNDS; i++) {
		buf[0] = (char)i;
		if (kwrite(to, buf, p->msg) != (long)p->msg || !read_full(from, buf, p->msg) ||
		    buf[0] != (char)i) {
			errors++;
			break;
		}
	}
	task_reap(t);
	pr_info("ktest: %d round trips of %zu bytes in %llu us, pong woken %llu times with the "
		"sync hint\n",
		PINGPONG_ROUNDS, p->msg, (unsigned long long)(arch_clock_ns() - t0) / 1000,
		(unsigned long long)p->sync_wakeups);
	KTEST_EXPECT(errors == 0);
	KTEST_EXPECT(p->errors == 0);
	/* The pong side slept in read most rounds and every wake-up was a writer's (sync). */
	KTEST_EXPECT(p->sync_wakeups > 0);
	return 0;
}

KTEST(ipc_pipe_pingpong);
static int ipc_pipe_pingpong(void)
{
	struct file *r1, *w1, *r2, *w2;
	struct pong p = { .msg = 1 };
	int ret;

	KTEST_EXPECT(pipe_create(&r1, &w1, 0) == 0);
	KTEST_EXPECT(pipe_create(&r2, &w2, 0) == 0);
	p.in = r1;
	p.out = w2;
	ret = pingpong(w1, r2, &p);
	fput(r1);
	fput(w1);
	fput(r2);
	fput(w2);
	return ret;
}

KTEST(ipc_socket_pingpong);
static int ipc_socket_pingpong(void)
{
	struct file *s0, *s1;
	struct pong p = { .msg = MSG_SIZE };
	int ret;

	KTEST_EXPECT(unix_stream_pair(&s0, &s1, 0) == 0);
	p.in = s1;
	p.out = s1;
	ret = pingpong(s0, s0, &p);
	fput(s0);
	fput(s1);
	return ret;
}

/* ---------------------------------------------------------------- bulk */

struct bulk {
	struct file *out;
	size_t piece;
	long written;
};

static char pattern(size_t i)
{
	return (char)(i * 7 + i / 4093);
}

/* Writes BULK_BYTES of the pattern in pieces, then closes its end. */
static void bulk_writer(void *arg)
{
	struct bulk *b = arg;
	char *buf = kmalloc(b->piece);
	size_t done = 0;

	while (buf && done < BULK_BYTES) {
		size_t n = b->piece < BULK_BYTES - done ? b->piece : BULK_BYTES - done;
		long w;

		for (size_t i = 0; i < n; i++)
			buf[i] = pattern(done + i);
		w = kwrite(b->out, buf, n);
		if (w <= 0)
			break;
		done += (size_t)w; /* a pipe write is whole unless interrupted; a socket's too */
		if ((size_t)w != n)
			break;
	}
	b->written = (long)done;
	kfree(buf);
	fput(b->out);
}

static int bulk(struct file *in, struct file *out, size_t wpiece, size_t rpiece)
{
	struct bulk b = { .out = out, .piece = wpiece };
	char *buf = kmalloc(rpiece);
	struct task *t;
	size_t got = 0;
	long n;
	bool same = true;

	KTEST_EXPECT(buf);
	t = kthread_create(bulk_writer, &b, "ktest-writer", 0);
	KTEST_EXPECT(t);
	while ((n = kread(in, buf, rpiece)) > 0) {
		for (long i = 0; i < n; i++)
			same &= buf[i] == pattern(got + (size_t)i);
		got += (size_t)n;
	}
	task_reap(t);
	kfree(buf);
	KTEST_EXPECT(n == 0); /* end of file once the writer closed */
	KTEST_EXPECT(b.written == BULK_BYTES);
	KTEST_EXPECT(got == BULK_BYTES);
	KTEST_EXPECT(same);
	return 0;
}

KTEST(ipc_pipe_bulk);
static int ipc_pipe_bulk(void)
{
	struct file *r, *w;
	int ret;

	KTEST_EXPECT(pipe_create(&r, &w, 0) == 0);
	ret = bulk(r, w, 3001, 4999);
	fput(r);
	return ret;
}

KTEST(ipc_socket_bulk);
static int ipc_socket_bulk(void)
{
	struct file *s0, *s1;
	int ret;

	KTEST_EXPECT(unix_stream_pair(&s0, &s1, 0) == 0);
	ret = bulk(s1, s0, 1000, 7000);
	fput(s1);
	return ret;
}

/* ---------------------------------------------------------------- poll */

struct late_writer {
	struct file *out;
	u64 delay_ns;
};

static void late_write(void *arg)
{
	struct late_writer *lw = arg;

	sched_sleep_ns(lw->delay_ns);
	kwrite(lw->out, "!", 1);
}

KTEST(ipc_poll_timeout);
static int ipc_poll_timeout(void)
{
	const long timeout_ms = 40;
	struct file *r, *w;
	struct poll_request req;
	struct late_writer lw;
	struct task *t;
	u64 t0, elapsed;
	long n;

	KTEST_EXPECT(pipe_create(&r, &w, 0) == 0);
	req = (struct poll_request){ .file = r, .events = POLLIN };
	/* Nothing comes: 0 after the timeout (tick granularity: a few ms late at most). */
	t0 = arch_clock_ns();
	n = poll_files(&req, 1, timeout_ms);
	elapsed = arch_clock_ns() - t0;
	KTEST_EXPECT(n == 0 && req.revents == 0);
	KTEST_EXPECT(elapsed >= (u64)timeout_ms * 1000000);
	KTEST_EXPECT(elapsed < (u64)timeout_ms * 1000000 + 1000000000ULL);
	/* A write 20 ms in ends a 5-second poll, and one without a timeout. */
	for (int forever = 0; forever < 2; forever++) {
		char c;

		lw = (struct late_writer){ .out = w, .delay_ns = 20000000 };
		t = kthread_create(late_write, &lw, "ktest-late", 0);
		KTEST_EXPECT(t);
		t0 = arch_clock_ns();
		n = poll_files(&req, 1, forever ? -1 : 5000);
		elapsed = arch_clock_ns() - t0;
		task_reap(t);
		KTEST_EXPECT(n == 1 && req.revents == POLLIN);
		KTEST_EXPECT(elapsed < 4000000000ULL);
		KTEST_EXPECT(kread(r, &c, 1) == 1);
	}
	fput(r);
	fput(w);
	return 0;
}
