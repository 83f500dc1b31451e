/*
 * fuzz: a seeded system-call fuzzer. The supervisor (main.c) forks one
 * worker per CPU; each worker (worker.c) makes random raw system calls
 * whose numbers and arguments come from gen.c, keeps a ring of its last
 * calls, and spawns children that may exit, exec, vfork and clone with
 * any flags. Call i of worker k depends only on (seed, k, i), so one
 * command replays a worker and a subset of its calls (the minimiser).
 */
#ifndef USER_FUZZ_FUZZ_H
#define USER_FUZZ_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#define FUZZ_MAX_WORKERS  64
#define FUZZ_RING	  64   /* calls kept per worker for the failure report */
#define FUZZ_LOG_FD	  1000 /* the worker's console; no generated argument names it */
#define FUZZ_TICK_SIG	  14   /* SIGALRM: the supervisor's tick, never blocked in a worker */
#define FUZZ_EXIT_FAULT	  99   /* a worker's status after a real fault of its own */
#define FUZZ_EXIT_STUCK	  98   /* a worker's child outlived SIGKILL */
#define FUZZ_MAX_CHILDREN 8    /* live children per worker; the oldest is killed beyond */
#define FUZZ_POOL	  16   /* descriptors a worker keeps for arguments */
#define FUZZ_PLAY_PAGES	  64   /* the playground: the only memory a worker may unmap */
#define FUZZ_PAGE	  4096ul

/* Who makes a call: what gen_sanitise allows depends on it. */
enum fuzz_role { ROLE_WORKER, ROLE_CHILD };

/* What a worker or child does with one generated call. */
enum fuzz_action {
	ACT_CALL,  /* make the system call */
	ACT_SPAWN, /* (worker) fork a child that makes random calls itself */
	ACT_DENY,  /* on the denylist for this role: skipped */
};

struct fuzz_call {
	uint32_t idx;
	long nr;
	long arg[6];
	long ret;
	int action;
};

struct fuzz_rng {
	uint64_t s;
};

/* The state a worker's generator draws on: its descriptors, memory, peers. */
struct fuzz_env {
	int worker;		     /* this worker's number */
	int nworkers;		     /* workers running (1 when replaying one) */
	int cpu;		     /* the CPU this worker is pinned to */
	int peers[FUZZ_MAX_WORKERS]; /* the workers' pids */
	int fds[FUZZ_POOL];	     /* pipes, sockets, /dev/null, files, a directory */
	int nfds;
	int children[FUZZ_MAX_CHILDREN]; /* live children's pids (0: free slot) */
	char *play;			 /* FUZZ_PLAY_PAGES pages, some unmapped by the calls */
	char *straddle; /* the last page of a mapping whose next page is unmapped */
	long brk0;	/* the break at start: brk never goes below it */
	enum fuzz_role role;
};

/* gen.c: the PRNG and the generator. */
uint64_t rng_next(struct fuzz_rng *r);
struct fuzz_rng rng_for(uint64_t seed, uint64_t worker, uint64_t idx, uint64_t salt);
void gen_call(struct fuzz_rng *r, const struct fuzz_env *env, struct fuzz_call *c);
void gen_init_buffers(void);
extern const char *const gen_exec_paths[];

/* worker.c */
void worker_install_handlers(void);
int worker_main(uint64_t seed, struct fuzz_env *env, uint32_t calls, const char *keep, int trace);
void worker_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int keep_has(const char *keep, uint32_t idx);

#endif
