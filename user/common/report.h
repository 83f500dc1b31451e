/*
 * Result lines for the programs in user/tests/: one "PASS <case>" or
 * "FAIL <case>: <why>" per case, then "<program>: N passed, M failed".
 * The host runner (tests/user/run-host) and the QEMU tests parse them.
 */
#ifndef USER_COMMON_REPORT_H
#define USER_COMMON_REPORT_H

#include <stdbool.h>

/* One case: returns NULL if it passed, else why it failed (report_why). */
struct test_case {
	const char *name;
	const char *(*run)(void);
};

/* Runs the cases in order, printing a result line for each. */
void report_run_all(const struct test_case *cases, int n);

/* Prints the result line of one case; why == NULL means it passed. */
void report_case(const char *name, const char *why);

/* A "# ..." line: information for a human, ignored by the parsers. */
void report_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints the summary line; returns the exit status (0 only if nothing failed). */
int report_done(const char *prog);

/* Formats a failure reason into a static buffer and returns it. */
const char *report_why(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "EBADF" for a known errno value, else its number. */
const char *report_errname(long err);

/* A raw system call result: "-EBADF" for -4095..-1, else the number. */
const char *report_ret(long ret);

#define REPORT_NCASES(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Inside a case function: fail the case unless cond holds. */
#define EXPECT(cond, ...)                               \
	do {                                            \
		if (!(cond))                            \
			return report_why(__VA_ARGS__); \
	} while (0)

/* A raw system call must fail with exactly -err. */
#define EXPECT_ERR(expr, err)                                                         \
	do {                                                                          \
		long e_ = (long)(expr);                                               \
		if (e_ != -(long)(err))                                               \
			return report_why("%s = %s, want -%s", #expr, report_ret(e_), \
					  report_errname(err));                       \
	} while (0)

/* expr must equal want. */
#define EXPECT_EQ(expr, want)                                                              \
	do {                                                                               \
		long v_ = (long)(expr), w_ = (long)(want);                                 \
		if (v_ != w_)                                                              \
			return report_why("%s = %s, want %ld", #expr, report_ret(v_), w_); \
	} while (0)

/* A raw system call must succeed (>= 0); evaluates to its result. */
#define EXPECT_OK(expr)                                                      \
	({                                                                   \
		long k_ = (long)(expr);                                      \
		if (k_ < 0)                                                  \
			return report_why("%s = %s", #expr, report_ret(k_)); \
		k_;                                                          \
	})

#endif
