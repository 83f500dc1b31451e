/*
 * The console device. One line discipline serves every open file of it;
 * its lock is taken with interrupts off, as the tick feeds it. Echo and
 * written text go to arch_console_write under the same lock, so echo
 * never lands inside a program's write.
 */
#include "fs/console.h"

#include <arch/console.h>
#include <arch/uaccess.h>

#include "fs/file.h"
#include "fs/iov_iter.h"
#include "fs/ldisc.h"
#include "fs/stat.h"
#include "ipc/poll.h"
#include "lib/compiler.h"
#include "lib/errno.h"
#include "lib/spinlock.h"
#include "proc/current.h"
#include "sched/task.h"
#include "sched/wait.h"

#define TIOCGWINSZ     0x5413
#define CONSOLE_CHUNK  256 /* bytes moved per lock hold */
#define INPUT_PER_TICK 64  /* bytes taken from the UART per tick at most */
#define CONSOLE_INO    2

struct winsize {
	u16 ws_row, ws_col, ws_xpixel, ws_ypixel;
};

static struct spinlock con_lock = SPINLOCK_INIT;
static struct ldisc ld;
static struct wait_queue readers = WAIT_QUEUE_INIT(readers);
static void (*interrupt_handler)(void);

static void echo(const char *s, size_t n)
{
	arch_console_write(s, n);
}

void console_poll_input(void)
{
	bool ready = false, intr = false;
	int c, n = 0;

	spin_lock(&con_lock); /* the tick runs with interrupts off */
	while (n++ < INPUT_PER_TICK && (c = arch_console_read_char()) >= 0) {
		int r = ldisc_input(&ld, (char)c, echo);

		ready |= r & LDISC_READY;
		intr |= r & LDISC_INTR;
	}
	spin_unlock(&con_lock);
	if (ready)
		wake_up_all(&readers);
	if (intr && READ_ONCE(interrupt_handler))
		interrupt_handler();
}

void console_set_interrupt_handler(void (*fn)(void))
{
	WRITE_ONCE(interrupt_handler, fn);
}

void console_reset_input(void)
{
	unsigned long flags = spin_lock_irqsave(&con_lock);

	ldisc_init(&ld);
	spin_unlock_irqrestore(&con_lock, flags);
}

static bool input_ready(void)
{
	unsigned long flags = spin_lock_irqsave(&con_lock);
	bool ready = ldisc_readable(&ld);

	spin_unlock_irqrestore(&con_lock, flags);
	return ready;
}

static long console_read(struct file *f, struct iov_iter *to)
{
	char buf[CONSOLE_CHUNK];

	if (!iov_iter_count(to))
		return 0;
	for (;;) {
		struct waiter w = { .task = NULL };
		unsigned long flags = spin_lock_irqsave(&con_lock);
		long n = ldisc_read(&ld, buf, MIN(iov_iter_count(to), sizeof(buf)));

		spin_unlock_irqrestore(&con_lock, flags);
		if (n >= 0)
			return copy_to_iter(buf, (size_t)n, to) == (size_t)n ? n : -EFAULT;
		if (file_nonblock(f))
			return -EAGAIN;
		if (current_signal_pending())
			return -ERESTARTSYS;
		wait_prepare_state(&readers, &w, TASK_INTERRUPTIBLE);
		if (!input_ready() && !current_signal_pending())
			schedule();
		wait_finish(&readers, &w);
	}
}

static long console_write(struct file *f, struct iov_iter *from)
{
	char buf[CONSOLE_CHUNK];
	long done = 0;

	while (iov_iter_count(from)) {
		size_t want = MIN(iov_iter_count(from), sizeof(buf));
		size_t got = copy_from_iter(buf, want, from);
		unsigned long flags;

		if (got) {
			flags = spin_lock_irqsave(&con_lock);
			arch_console_write(buf, got);
			spin_unlock_irqrestore(&con_lock, flags);
			done += (long)got;
		}
		if (got < want)
			return done ? done : -EFAULT;
	}
	return done;
}

static unsigned int console_poll(struct file *f, struct poll_table *pt)
{
	poll_wait(&readers, pt);
	return POLLOUT | POLLWRNORM | (input_ready() ? POLLIN | POLLRDNORM : 0);
}

static long console_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	struct winsize ws = { .ws_row = CONSOLE_ROWS, .ws_col = CONSOLE_COLS };

	if (cmd != TIOCGWINSZ)
		return -ENOTTY;
	return copy_to_user((void *)arg, &ws, sizeof(ws));
}

void console_kstat(struct kstat *st)
{
	st->st_dev = KDEV_DEVTMPFS;
	st->st_ino = CONSOLE_INO;
	st->st_mode = S_IFCHR | 0600;
	st->st_nlink = 1;
	st->st_rdev = KDEV(5, 1);
	st->st_blksize = 4096;
}

static void console_fstat(struct file *f, struct kstat *st)
{
	console_kstat(st);
}

static const struct file_ops console_ops = {
	.read = console_read,
	.write = console_write,
	.poll = console_poll,
	.fstat = console_fstat,
	.ioctl = console_ioctl,
};

struct file *console_open(unsigned int flags)
{
	return file_alloc(&console_ops, flags, NULL);
}
