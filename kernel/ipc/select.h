/*
 * select(2), pselect6(2) and ppoll(2) over poll's machinery (ipc/poll.h).
 * select's descriptor sets are Linux's: bit fd % 64 of the 64-bit word
 * fd / 64; nfds is cut down to the descriptor table's size, as Linux cuts
 * it to max_fds. Readable means POLLIN, POLLRDNORM, POLLRDBAND, POLLHUP or
 * POLLERR; writable POLLOUT, POLLWRNORM, POLLWRBAND or POLLERR;
 * exceptional POLLPRI. A timeout argument gets the time left written back
 * (not for a zero timeout), as Linux does; a call a signal interrupts
 * returns -ERESTARTNOHAND, restarted with that time left unless a handler
 * ran. pselect6 and ppoll run under their signal mask, if given, for the
 * length of the call (proc/current.h, current_sigmask_begin).
 */
#ifndef FULCRUM_IPC_SELECT_H
#define FULCRUM_IPC_SELECT_H

#include "ipc/poll.h"
#include "lib/types.h"

#define POLLIN_SET  (POLLRDNORM | POLLRDBAND | POLLIN | POLLHUP | POLLERR)
#define POLLOUT_SET (POLLWRBAND | POLLWRNORM | POLLOUT | POLLERR)
#define POLLEX_SET  POLLPRI

/* The user's struct timespec and struct timeval (x86-64). */
struct k_timespec {
	s64 tv_sec;
	s64 tv_nsec;
};

struct k_timeval {
	s64 tv_sec;
	s64 tv_usec;
};

/* pselect6's sixth argument. */
struct sigset_argpack {
	const u64 *ss;
	size_t ss_len;
};

/* Bytes of a set covering n descriptors: whole 64-bit words. */
static inline size_t fdset_bytes(unsigned int n)
{
	return (((size_t)n + 63) / 64) * 8;
}

static inline bool fdset_isset(const u64 *set, unsigned int fd)
{
	return set && ((set[fd / 64] >> (fd % 64)) & 1);
}

static inline void fdset_set(u64 *set, unsigned int fd)
{
	set[fd / 64] |= 1ULL << (fd % 64);
}

/*
 * A timeout from seconds and nanoseconds, Linux's poll_select_set_timeout:
 * -EINVAL unless sec >= 0 and 0 <= nsec < 10^9; else 0 with *ns its length
 * (saturated at S64_MAX).
 */
int select_timeout_ns(s64 sec, s64 nsec, s64 *ns);

/* select's timeval as Linux reads it: seconds plus whole seconds of usec, the rest in ns. */
int select_timeval_ns(s64 sec, s64 usec, s64 *ns);

/*
 * The core of select on kernel copies of the sets (NULL: not given) of n
 * descriptors: res_* (n bits, zeroed here) get the ready ones. Returns how
 * many bits were set in all three, 0 on timeout, -EBADF (a set names a
 * descriptor that is not open), -EINTR (a signal), -ENOMEM. timeout_ns < 0
 * waits for ever, 0 never sleeps.
 */
long select_files(unsigned int n, const u64 *in, const u64 *out, const u64 *ex, u64 *res_in,
		  u64 *res_out, u64 *res_ex, s64 timeout_ns);

long sys_select(int n, u64 *uin, u64 *uout, u64 *uex, struct k_timeval *utv);
long sys_pselect6(int n, u64 *uin, u64 *uout, u64 *uex, struct k_timespec *uts,
		  const struct sigset_argpack *usig);
long sys_ppoll(struct pollfd *ufds, unsigned int nfds, struct k_timespec *uts, const u64 *usigmask,
	       size_t sigsetsize);

#endif
