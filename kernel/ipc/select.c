/*
 * select, pselect6 and ppoll (see select.h): argument checks in Linux's
 * order, then poll_files_ns with one request per descriptor named in any
 * set (exact masks, so a hang-up alone does not wake a select that asked
 * only for writing), and the time left written back at the end.
 */
#include "ipc/select.h"

#include <arch/time.h>
#include <arch/uaccess.h>

#include "fs/fdtable.h"
#include "fs/file.h"
#include "ipc/poll.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "proc/current.h"
#include "proc/syscall.h"

#define NSEC_PER_SEC  1000000000LL
#define NSEC_PER_USEC 1000LL
#define USEC_PER_SEC  1000000LL
#define S64_MAX	      0x7fffffffffffffffLL

int select_timeout_ns(s64 sec, s64 nsec, s64 *ns)
{
	s64 whole;

	if (sec < 0 || nsec < 0 || nsec >= NSEC_PER_SEC)
		return -EINVAL;
	if (__builtin_mul_overflow(sec, NSEC_PER_SEC, &whole) ||
	    __builtin_add_overflow(whole, nsec, ns))
		*ns = S64_MAX;
	return 0;
}

int select_timeval_ns(s64 sec, s64 usec, s64 *ns)
{
	s64 s;

	if (__builtin_add_overflow(sec, usec / USEC_PER_SEC, &s))
		s = S64_MAX;
	return select_timeout_ns(s, (usec % USEC_PER_SEC) * NSEC_PER_USEC, ns);
}

/* A timeout argument: its length and the deadline it makes. */
struct select_timeout {
	bool given;
	s64 ns;
	u64 end;
};

static void timeout_start(struct select_timeout *t, s64 ns)
{
	t->given = true;
	t->ns = ns;
	if (__builtin_add_overflow(arch_clock_ns(), (u64)ns, &t->end))
		t->end = (u64)-1;
}

/*
 * Linux's poll_select_finish: the mask from before pselect6/ppoll comes
 * back (after signal delivery if the call was interrupted), and the time
 * left goes back to the caller's timeout unless it was zero. A timeout
 * that cannot be written back makes an interrupted call -EINTR: it could
 * not be restarted with the time left.
 */
static long select_finish(const struct select_timeout *t, void *utime, bool timeval, long ret)
{
	u64 now, left;
	int err;

	current_sigmask_end(ret == -ERESTARTNOHAND);
	if (!utime || !t->given || t->ns == 0)
		return ret;
	now = arch_clock_ns();
	left = t->end > now ? t->end - now : 0;
	if (timeval) {
		struct k_timeval tv = { (s64)(left / NSEC_PER_SEC),
					(s64)(left % NSEC_PER_SEC) / NSEC_PER_USEC };

		err = copy_to_user(utime, &tv, sizeof(tv));
	} else {
		struct k_timespec ts = { (s64)(left / NSEC_PER_SEC), (s64)(left % NSEC_PER_SEC) };

		err = copy_to_user(utime, &ts, sizeof(ts));
	}
	if (err && ret == -ERESTARTNOHAND)
		ret = -EINTR;
	return ret;
}

long select_files(unsigned int n, const u64 *in, const u64 *out, const u64 *ex, u64 *res_in,
		  u64 *res_out, u64 *res_ex, s64 timeout_ns)
{
	struct poll_request *reqs = NULL;
	unsigned int nr = 0, fd, i;
	long ret;

	if (res_in)
		memset(res_in, 0, fdset_bytes(n));
	if (res_out)
		memset(res_out, 0, fdset_bytes(n));
	if (res_ex)
		memset(res_ex, 0, fdset_bytes(n));
	for (fd = 0; fd < n; fd++)
		if (fdset_isset(in, fd) || fdset_isset(out, fd) || fdset_isset(ex, fd))
			nr++;
	if (nr) {
		reqs = kmalloc(nr * sizeof(*reqs));
		if (!reqs)
			return -ENOMEM;
	}
	for (fd = 0, i = 0; fd < n && i < nr; fd++) {
		short events = (short)((fdset_isset(in, fd) ? POLLIN_SET : 0) |
				       (fdset_isset(out, fd) ? POLLOUT_SET : 0) |
				       (fdset_isset(ex, fd) ? POLLEX_SET : 0));

		if (!events)
			continue;
		reqs[i] = (struct poll_request){ .file = fget((int)fd),
						 .events = events,
						 .exact = true };
		if (!reqs[i].file) {
			ret = -EBADF;
			goto out;
		}
		i++;
	}
	ret = poll_files_ns(reqs, nr, timeout_ns);
	if (ret > 0) {
		ret = 0;
		for (fd = 0, i = 0; fd < n && i < nr; fd++) {
			if (!fdset_isset(in, fd) && !fdset_isset(out, fd) && !fdset_isset(ex, fd))
				continue;
			if (fdset_isset(in, fd) && (reqs[i].revents & POLLIN_SET)) {
				fdset_set(res_in, fd);
				ret++;
			}
			if (fdset_isset(out, fd) && (reqs[i].revents & POLLOUT_SET)) {
				fdset_set(res_out, fd);
				ret++;
			}
			if (fdset_isset(ex, fd) && (reqs[i].revents & POLLEX_SET)) {
				fdset_set(res_ex, fd);
				ret++;
			}
			i++;
		}
	}
out:
	while (i--)
		fput(reqs[i].file);
	kfree(reqs);
	return ret;
}

/* core_sys_select: the sets copied in, waited on, and copied back unless it failed. */
static long core_select(int n, u64 *uin, u64 *uout, u64 *uex, s64 timeout_ns)
{
	u64 *uset[3] = { uin, uout, uex }, *kset[3], *kres[3];
	struct files *files = current_files();
	unsigned int max;
	size_t bytes;
	u64 *mem;
	long ret = 0;

	if (n < 0)
		return -EINVAL;
	max = files ? READ_ONCE(files->capacity) : FD_MAX;
	if ((unsigned int)n > max)
		n = (int)max;
	bytes = fdset_bytes((unsigned int)n);
	mem = kzalloc(6 * bytes + 8);
	if (!mem)
		return -ENOMEM;
	for (int i = 0; i < 3; i++) {
		kset[i] = uset[i] ? mem + i * (bytes / 8) : NULL;
		kres[i] = uset[i] ? mem + (3 + i) * (bytes / 8) : NULL;
		if (uset[i] && copy_from_user(kset[i], uset[i], bytes))
			ret = -EFAULT;
	}
	if (!ret)
		ret = select_files((unsigned int)n, kset[0], kset[1], kset[2], kres[0], kres[1],
				   kres[2], timeout_ns);
	if (ret == -EINTR)
		ret = -ERESTARTNOHAND;
	for (int i = 0; i < 3 && ret >= 0; i++)
		if (uset[i] && copy_to_user(uset[i], kres[i], bytes))
			ret = -EFAULT;
	kfree(mem);
	return ret;
}

long sys_select(int n, u64 *uin, u64 *uout, u64 *uex, struct k_timeval *utv)
{
	struct select_timeout t = { .given = false };
	struct k_timeval tv;
	s64 ns;

	if (utv) {
		if (copy_from_user(&tv, utv, sizeof(tv)))
			return -EFAULT;
		if (select_timeval_ns(tv.tv_sec, tv.tv_usec, &ns))
			return -EINVAL;
		timeout_start(&t, ns);
	}
	return select_finish(&t, utv, true, core_select(n, uin, uout, uex, utv ? t.ns : -1));
}
SYSCALL_DEFINE5(select, int, u64 *, u64 *, u64 *, struct k_timeval *);

/* The timeout and the signal mask of pselect6 and ppoll; the mask is in force when 0 is returned. */
static int timed_masked_start(struct k_timespec *uts, const u64 *umask, size_t size,
			      struct select_timeout *t)
{
	struct k_timespec ts;
	u64 mask;
	s64 ns;

	if (uts) {
		if (copy_from_user(&ts, uts, sizeof(ts)))
			return -EFAULT;
		if (select_timeout_ns(ts.tv_sec, ts.tv_nsec, &ns))
			return -EINVAL;
		timeout_start(t, ns);
	}
	if (umask) {
		if (size != sizeof(mask))
			return -EINVAL;
		if (copy_from_user(&mask, umask, sizeof(mask)))
			return -EFAULT;
		current_sigmask_begin(mask);
	}
	return 0;
}

long sys_pselect6(int n, u64 *uin, u64 *uout, u64 *uex, struct k_timespec *uts,
		  const struct sigset_argpack *usig)
{
	struct select_timeout t = { .given = false };
	struct sigset_argpack pack = { NULL, 0 };
	int err;

	if (usig && copy_from_user(&pack, usig, sizeof(pack)))
		return -EFAULT;
	err = timed_masked_start(uts, pack.ss, pack.ss_len, &t);
	if (err)
		return err;
	return select_finish(&t, uts, false, core_select(n, uin, uout, uex, uts ? t.ns : -1));
}
SYSCALL_DEFINE6(pselect6, int, u64 *, u64 *, u64 *, struct k_timespec *,
		const struct sigset_argpack *);

long sys_ppoll(struct pollfd *ufds, unsigned int nfds, struct k_timespec *uts, const u64 *usigmask,
	       size_t sigsetsize)
{
	struct select_timeout t = { .given = false };
	long ret;

	ret = timed_masked_start(uts, usigmask, sigsetsize, &t);
	if (ret)
		return ret;
	ret = poll_user(ufds, nfds, uts ? t.ns : -1);
	if (ret == -EINTR)
		ret = -ERESTARTNOHAND;
	return select_finish(&t, uts, false, ret);
}
SYSCALL_DEFINE5(ppoll, struct pollfd *, unsigned int, struct k_timespec *, const u64 *, size_t);
