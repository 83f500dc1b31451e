/*
 * The generator: a splitmix64 PRNG, the choice of a system-call number
 * and of six nasty arguments, and the denylist that keeps a worker alive.
 *
 * Numbers: half the calls pick among the calls Fulcrum implements, most
 * of the rest any number Linux x86-64 has (0..GEN_MAX_NR), and a few go
 * beyond (up to 1023, the x32 bit, negative, 2^32 + n).
 *
 * Arguments: each of the six is drawn from one of these kinds: 0, -1,
 * small integers, boundary lengths (4095, 4096, 4097, 2^31, ~0, ...),
 * random 32- and 64-bit values, descriptors that exist and ones that do
 * not, pointers into a writable scratch buffer (aligned or not), into the
 * playground (some of its pages unmapped by earlier calls), straddling a
 * mapping's end, NULL and low addresses, the kernel half (direct map at
 * 0xffff800000000000 and up, the image at 0xffffffff80000000), non-canonical
 * ones, path strings, the program's read-only text, pids and signals.
 *
 * The denylist (gen_sanitise): calls that would end or blind the run are
 * skipped or have an argument pinned. In a worker:
 *   - reboot, rt_sigreturn, sigaltstack: skipped;
 *   - exit, exit_group, fork, vfork, clone, clone3, execve, execveat: a
 *     child is spawned instead, and it makes such calls itself;
 *   - kill/tkill/tgkill: the target is the worker itself, a peer, one of
 *     its children or a pid that does not exist (never 0, -1, init or the
 *     supervisor: any other value is replaced by one of those); the
 *     signal one a worker handles (not SIGKILL or SIGSTOP) unless the
 *     target is its own child;
 *   - rt_sigaction: the new action, if any, is the worker's own handler;
 *     timer_create's event, if any, names a signal the worker handles;
 *   - calls that take a signal mask get one without the tick signal;
 *   - memory calls (mmap with MAP_FIXED, munmap, mprotect, mremap, madvise,
 *     mlock...) act only inside the playground; brk never shrinks below the
 *     start; MAP_POPULATE is dropped above 4 MiB (the OOM killer is
 *     another test's subject);
 *   - sched_setaffinity keeps the worker's own CPU; arch_prctl may not set
 *     FS or GS; close_range starts above the log descriptor;
 *   - no argument may name the log descriptor (FUZZ_LOG_FD).
 * Nothing is kept out for a known kernel bug: a child's clone carries any
 * flags and exit signal, CLONE_VFORK with CLONE_THREAD included, and a
 * vfork child goes on making calls in its parent's memory.
 *
 * In a child, only reboot is skipped; kill/tkill/tgkill aim as in a worker
 * (itself, its own children, a peer with a signal a worker handles, or a
 * pid that does not exist), and anything else goes.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "../common/rawsys.h"
#include "fuzz.h"

#define GEN_MAX_NR 463 /* the last number Linux 6.12 has on x86-64 (mseal is 462) */
#define NOPID	   99999

/* The numbers Fulcrum implements: half of all calls go to these. */
static const short implemented[] = {
	SYS_read,
	SYS_write,
	SYS_open,
	SYS_close,
	SYS_stat,
	SYS_fstat,
	SYS_lstat,
	SYS_poll,
	SYS_lseek,
	SYS_mmap,
	SYS_mprotect,
	SYS_munmap,
	SYS_brk,
	SYS_rt_sigaction,
	SYS_rt_sigprocmask,
	SYS_ioctl,
	SYS_pread64,
	SYS_pwrite64,
	SYS_readv,
	SYS_writev,
	SYS_access,
	SYS_pipe,
	SYS_select,
	SYS_sched_yield,
	SYS_madvise,
	SYS_dup,
	SYS_dup2,
	SYS_nanosleep,
	SYS_getpid,
	SYS_sendto,
	SYS_recvfrom,
	SYS_shutdown,
	SYS_socketpair,
	SYS_clone,
	SYS_fork,
	SYS_vfork,
	SYS_execve,
	SYS_exit,
	SYS_wait4,
	SYS_kill,
	SYS_uname,
	SYS_fcntl,
	SYS_getcwd,
	SYS_chdir,
	SYS_fchdir,
	SYS_gettimeofday,
	SYS_getrlimit,
	SYS_getrusage,
	SYS_sysinfo,
	SYS_getuid,
	SYS_getgid,
	SYS_geteuid,
	SYS_getegid,
	SYS_getppid,
	SYS_rt_sigpending,
	SYS_sigaltstack,
	SYS_getpriority,
	SYS_setpriority,
	SYS_sched_setparam,
	SYS_sched_getparam,
	SYS_sched_setscheduler,
	SYS_sched_getscheduler,
	SYS_sched_get_priority_max,
	SYS_sched_get_priority_min,
	SYS_arch_prctl,
	SYS_setrlimit,
	SYS_gettid,
	SYS_tkill,
	SYS_time,
	SYS_futex,
	SYS_sched_setaffinity,
	SYS_sched_getaffinity,
	SYS_getdents64,
	SYS_set_tid_address,
	SYS_clock_gettime,
	SYS_clock_getres,
	SYS_clock_nanosleep,
	SYS_exit_group,
	SYS_tgkill,
	SYS_openat,
	SYS_newfstatat,
	SYS_pselect6,
	SYS_ppoll,
	SYS_dup3,
	SYS_pipe2,
	SYS_prlimit64,
	SYS_getcpu,
	SYS_faccessat,
	SYS_faccessat2,
	SYS_rt_sigsuspend,
	SYS_rt_sigtimedwait,
	SYS_clone3,
	SYS_execveat,
};
#define NR_IMPLEMENTED (sizeof(implemented) / sizeof(implemented[0]))

static const unsigned long boundaries[] = {
	1,
	2,
	7,
	8,
	63,
	64,
	255,
	256,
	4095,
	4096,
	4097,
	8191,
	8192,
	65535,
	65536,
	1ul << 20,
	(1ul << 31) - 1,
	1ul << 31,
	(1ul << 32) - 1,
	1ul << 32,
	1ul << 47,
	(1ul << 63) - 1,
	1ul << 63,
	~0ul,
	~0ul - 4095,
	0x7fff0000,
};

/* Addresses in the kernel half, on its edges and outside canonical space. */
static const unsigned long kernel_addrs[] = {
	0xffff800000000000ul, 0xffff800000001000ul, 0xffff800000100000ul, 0xffff880000000000ul,
	0xffffffff80000000ul, 0xffffffff80100000ul, 0xffffffff80200000ul, 0xfffffffffffff000ul,
	0x0000800000000000ul, 0x00007ffffffff000ul, 0x00007fffffffffffl,  0x8000000000000000ul,
	0xffff7ffffffff000ul,
};

static const char *const paths[] = {
	"/",
	"/dev/null",
	"/dev/console",
	"/etc/motd",
	"/bin/sh",
	"/bin/fuzz",
	"/init",
	"/proc",
	"/proc/self",
	"/proc/schedstat",
	"/proc/fulcrum/objects",
	"/tests",
	".",
	"..",
	"",
	"/nonexistent",
	"/etc/motd/",
	"//bin//sh",
	"/bin/",
	"/proc/1/status",
	"bin",
	"/tmp/new",
	"\xff\xfe\x01",
};
#define NR_PATHS (sizeof(paths) / sizeof(paths[0]))

/* What a child execs: one that exits at once, ones that are not programs, none. */
const char *const gen_exec_paths[] = {
	"/bin/fuzz", "/bin/fuzz", "/nonexistent", "/etc/motd", "/", "/proc/schedstat", "", NULL,
};

/* Written only by the kernel and read by nobody: the target of out-pointers. */
static char scratch[8 * FUZZ_PAGE] __attribute__((aligned(4096)));
/* A name longer than PATH_MAX, and one exactly 4095 bytes long. */
static char long_path[4200], path_4095[4096];
/* The worker's own action for rt_sigaction and masks for the mask calls. */
struct k_sigaction {
	void *handler;
	unsigned long flags;
	void *restorer;
	unsigned long mask;
};
static struct k_sigaction own_action, own_action0;
/* A worker's timer_create event: its signal is one the worker handles. */
static struct {
	long value;
	int signo, notify, tid, pad[11];
} own_event;
static unsigned long mask_buf[4];
static struct {
	unsigned long *set;
	unsigned long size;
} pselect_mask = { mask_buf, 8 };

uint64_t rng_next(struct fuzz_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A generator for one call: its values depend on nothing but these four numbers. */
struct fuzz_rng rng_for(uint64_t seed, uint64_t worker, uint64_t idx, uint64_t salt)
{
	struct fuzz_rng r = { seed ^ (worker * 0xd6e8feb86659fd93ull) ^
			      (idx * 0xa0761d6478bd642full) ^ (salt * 0xe7037ed1a0b428dbull) };

	rng_next(&r);
	return r;
}

static uint64_t below(struct fuzz_rng *r, uint64_t n)
{
	return rng_next(r) % n;
}

/* Fills the buffers once per worker, after its handlers are installed. */
void gen_init_buffers(void)
{
	memset(long_path, 'a', sizeof(long_path) - 1);
	long_path[0] = '/';
	memset(path_4095, 'b', sizeof(path_4095) - 1);
	path_4095[0] = '/';
	/* The kernel's view of the handler musl installed, restorer included. */
	raw4(SYS_rt_sigaction, SIGUSR1, NULL, &own_action0, 8);
}

static long gen_fd(struct fuzz_rng *r, const struct fuzz_env *env)
{
	static const long absent[] = { 999, 1023, 1024, 4096, -100, 0x7fffffff, -1, 3, 4, 5 };

	if (env->nfds && below(r, 4))
		return env->fds[below(r, env->nfds)];
	return absent[below(r, sizeof(absent) / sizeof(absent[0]))];
}

static long gen_pid(struct fuzz_rng *r, const struct fuzz_env *env)
{
	switch (below(r, 4)) {
	case 0:
		return env->peers[below(r, env->nworkers)];
	case 1:
		return env->children[below(r, FUZZ_MAX_CHILDREN)] ?: NOPID;
	case 2:
		return raw0(SYS_getpid);
	default:
		return NOPID;
	}
}

static long gen_arg(struct fuzz_rng *r, const struct fuzz_env *env)
{
	unsigned long off;

	switch (below(r, 16)) {
	case 0:
		return 0;
	case 1:
		return -1;
	case 2:
		return (long)below(r, 17);
	case 3:
		return (long)boundaries[below(r, sizeof(boundaries) / sizeof(boundaries[0]))];
	case 4:
		return below(r, 2) ? (long)rng_next(r) : (long)(uint32_t)rng_next(r);
	case 5:
	case 6:
		return gen_fd(r, env);
	case 7: /* the scratch buffer, aligned or not */
		off = below(r, 2) ? below(r, 8) * FUZZ_PAGE : below(r, sizeof(scratch));
		return (long)(scratch + off);
	case 8: /* the playground, some of it unmapped */
		off = below(r, FUZZ_PLAY_PAGES) * FUZZ_PAGE + (below(r, 2) ? 0 : below(r, FUZZ_PAGE));
		return (long)(env->play + off);
	case 9: /* the last bytes before an unmapped page */
		return (long)(env->straddle + FUZZ_PAGE - 1 - below(r, 64));
	case 10:
		return (long)(below(r, 2) ? 8 : below(r, 65536));
	case 11:
		off = below(r, 3) ? 0 : below(r, 1u << 20) * 8;
		return (long)(kernel_addrs[below(r, sizeof(kernel_addrs) / sizeof(kernel_addrs[0]))] +
			      off);
	case 12:
		switch (below(r, 8)) {
		case 0:
			return (long)long_path;
		case 1:
			return (long)path_4095;
		default:
			return (long)paths[below(r, NR_PATHS)];
		}
	case 13: /* read-only: the program's own text */
		return (long)((char *)gen_arg + below(r, 256));
	case 14:
		return gen_pid(r, env);
	default:
		return (long)below(r, 66); /* a signal number, or just a small one */
	}
}

static long gen_nr(struct fuzz_rng *r)
{
	uint64_t k = below(r, 100);

	if (k < 50)
		return implemented[below(r, NR_IMPLEMENTED)];
	if (k < 95)
		return (long)below(r, GEN_MAX_NR + 1);
	switch (below(r, 4)) {
	case 0:
		return GEN_MAX_NR + 1 + (long)below(r, 1024 - GEN_MAX_NR);
	case 1:
		return 0x40000000l + (long)below(r, 548); /* x32 numbers */
	case 2:
		return -1 - (long)below(r, 16);
	default:
		return (1l << 32) + (long)below(r, 64); /* the table's index truncated to 32 bits */
	}
}

/* A signal a worker survives: any but SIGKILL, SIGSTOP and musl's own 32..34. */
static long handled_sig(struct fuzz_rng *r)
{
	long s;

	do
		s = 1 + (long)below(r, 64);
	while (s == SIGKILL || s == SIGSTOP || (s >= 32 && s <= 34));
	return s;
}

static int is_child_of(const struct fuzz_env *env, long pid)
{
	for (int i = 0; i < FUZZ_MAX_CHILDREN; i++)
		if (env->children[i] && env->children[i] == pid)
			return 1;
	return 0;
}

static int is_peer(const struct fuzz_env *env, long pid)
{
	for (int i = 0; i < env->nworkers; i++)
		if (env->peers[i] == pid)
			return 1;
	return 0;
}

/* kill, tkill, tgkill: never the whole system, init or a worker's death. */
static void sanitise_kill(struct fuzz_rng *r, const struct fuzz_env *env, struct fuzz_call *c,
			  int pid_arg, int sig_arg)
{
	long pid = c->arg[pid_arg];

	if (pid != raw0(SYS_getpid) && pid != NOPID && !is_peer(env, pid) && !is_child_of(env, pid))
		pid = c->arg[pid_arg] = gen_pid(r, env);
	if (c->nr == SYS_tgkill)
		c->arg[0] = below(r, 2) ? pid : 0;
	if (env->role == ROLE_WORKER ? !is_child_of(env, pid) : is_peer(env, pid))
		c->arg[sig_arg] = handled_sig(r);
	/* A child's signal 0..64 to itself or its own children is left as it came. */
	if ((unsigned long)c->arg[sig_arg] > 64)
		c->arg[sig_arg] = below(r, 65);
}

static void pin_to_playground(struct fuzz_rng *r, const struct fuzz_env *env, long *addr, long *len)
{
	unsigned long page = below(r, FUZZ_PLAY_PAGES), max = (FUZZ_PLAY_PAGES - page) * FUZZ_PAGE;

	*addr = (long)(env->play + page * FUZZ_PAGE + (below(r, 8) ? 0 : below(r, FUZZ_PAGE)));
	if (len && (unsigned long)*len > max)
		*len = (long)(below(r, 2) ? max : below(r, max + 1));
}

static long masked(struct fuzz_rng *r)
{
	mask_buf[0] = rng_next(r) & ~(1ul << (FUZZ_TICK_SIG - 1));
	mask_buf[0] &= ~((1ul << (SIGSEGV - 1)) | (1ul << (SIGBUS - 1)));
	return (long)mask_buf;
}

/* Applies the denylist for env->role; returns the action for c. */
static int gen_sanitise(struct fuzz_rng *r, const struct fuzz_env *env, struct fuzz_call *c)
{
	int worker = env->role == ROLE_WORKER;

	for (int i = 0; i < 6; i++)
		if (c->arg[i] == FUZZ_LOG_FD)
			c->arg[i] = FUZZ_LOG_FD + 1;
	switch (c->nr) {
	case SYS_reboot:
		return ACT_DENY;
	case SYS_kill:
		sanitise_kill(r, env, c, 0, 1);
		return ACT_CALL;
	case SYS_tkill:
		sanitise_kill(r, env, c, 0, 1);
		return ACT_CALL;
	case SYS_tgkill:
		sanitise_kill(r, env, c, 1, 2);
		return ACT_CALL;
	case SYS_close_range:
		if ((unsigned long)c->arg[0] <= FUZZ_LOG_FD)
			c->arg[0] = FUZZ_LOG_FD + 1;
		return ACT_CALL;
	}
	if (!worker) {
		if (c->nr == SYS_execve || c->nr == SYS_execveat) {
			int p = c->nr == SYS_execve ? 0 : 1;

			if (below(r, 4))
				c->arg[p] = (long)gen_exec_paths[below(r, 8)];
		}
		return ACT_CALL;
	}
	switch (c->nr) {
	case SYS_rt_sigreturn:
	case SYS_sigaltstack:
		return ACT_DENY;
	case SYS_exit:
	case SYS_exit_group:
	case SYS_fork:
	case SYS_vfork:
	case SYS_clone:
	case SYS_clone3:
	case SYS_execve:
	case SYS_execveat:
		return ACT_SPAWN;
	case SYS_rt_sigaction:
		if (c->arg[1]) {
			own_action = own_action0;
			own_action.mask = rng_next(r);
			own_action.flags = (own_action.flags &
					    ~(SA_RESTART | SA_RESETHAND | SA_ONSTACK)) |
					   (rng_next(r) & (SA_SIGINFO | SA_NODEFER));
			if (c->arg[0] != FUZZ_TICK_SIG && below(r, 2))
				own_action.flags |= SA_RESTART;
			c->arg[1] = (long)&own_action;
		}
		return ACT_CALL;
	case SYS_timer_create:
		if (c->arg[1]) {
			static const int notify[] = { 0, 1, 2, 4, 7 }; /* SIGNAL NONE THREAD THREAD_ID */

			own_event.value = (long)rng_next(r);
			own_event.signo = (int)handled_sig(r);
			own_event.notify = notify[below(r, 5)];
			own_event.tid = (int)raw0(SYS_gettid);
			c->arg[1] = (long)&own_event;
		}
		return ACT_CALL;
	case SYS_rt_sigprocmask:
		if (c->arg[1])
			c->arg[1] = masked(r);
		return ACT_CALL;
	case SYS_rt_sigsuspend:
	case SYS_rt_sigtimedwait:
		c->arg[0] = masked(r);
		return ACT_CALL;
	case SYS_ppoll:
		if (c->arg[3])
			c->arg[3] = masked(r);
		return ACT_CALL;
	case SYS_pselect6:
		if (c->arg[5]) {
			masked(r);
			c->arg[5] = (long)&pselect_mask;
		}
		return ACT_CALL;
	case SYS_epoll_pwait:
	case SYS_epoll_pwait2:
		if (c->arg[4])
			c->arg[4] = masked(r);
		return ACT_CALL;
	case SYS_signalfd:
	case SYS_signalfd4:
		c->arg[1] = masked(r);
		return ACT_CALL;
	case SYS_mmap:
		if (c->arg[3] & (MAP_FIXED | MAP_FIXED_NOREPLACE))
			pin_to_playground(r, env, &c->arg[0], &c->arg[1]);
		if ((unsigned long)c->arg[1] > (4ul << 20))
			c->arg[3] &= ~MAP_POPULATE;
		return ACT_CALL;
	case SYS_munmap:
	case SYS_mprotect:
	case SYS_madvise:
	case SYS_mlock:
	case SYS_munlock:
	case SYS_mlock2:
	case SYS_msync:
	case SYS_mincore:
	case SYS_pkey_mprotect:
	case SYS_remap_file_pages:
		pin_to_playground(r, env, &c->arg[0], &c->arg[1]);
		return ACT_CALL;
	case SYS_mremap:
		pin_to_playground(r, env, &c->arg[0], &c->arg[1]);
		if ((unsigned long)c->arg[2] > (4ul << 20))
			c->arg[2] = (long)below(r, 4ul << 20);
		if (c->arg[3] & MREMAP_FIXED)
			pin_to_playground(r, env, &c->arg[4], NULL);
		return ACT_CALL;
	case SYS_brk:
		if (c->arg[0] && (unsigned long)c->arg[0] < (unsigned long)env->brk0 + (1ul << 40))
			c->arg[0] = env->brk0 + (long)below(r, 1ul << 22);
		return ACT_CALL;
	case SYS_sched_setaffinity:
		if (c->arg[0] == 0 || c->arg[0] == raw0(SYS_getpid) || is_peer(env, c->arg[0]))
			c->arg[0] = below(r, 2)				       ? NOPID :
				    env->children[below(r, FUZZ_MAX_CHILDREN)] ?:
										 NOPID;
		return ACT_CALL;
	case SYS_arch_prctl:
		if (c->arg[0] == 0x1001 || c->arg[0] == 0x1002) /* ARCH_SET_GS, ARCH_SET_FS */
			c->arg[0] = 0x1003 + (long)below(r, 2); /* the GET ones */
		return ACT_CALL;
	}
	return ACT_CALL;
}

/* The call at this point of the sequence: its number, arguments and action. */
void gen_call(struct fuzz_rng *r, const struct fuzz_env *env, struct fuzz_call *c)
{
	c->nr = gen_nr(r);
	for (int i = 0; i < 6; i++)
		c->arg[i] = gen_arg(r, env);
	c->ret = 0;
	c->action = gen_sanitise(r, env, c);
}
