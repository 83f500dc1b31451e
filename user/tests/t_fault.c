/*
 * t_fault: a program that dies.  "t_fault <mode>" commits one kind of
 * user fault and must be killed by the expected signal; without an
 * argument it runs every mode in a fork+execve'd copy of itself and checks
 * each child's wait status.  t_proc runs the modes the same way.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../common/child.h"
#include "../common/rawsys.h"
#include "../common/report.h"

extern char **environ;

static const struct {
	const char *mode;
	int signal;
} modes[] = {
	{ "segv", SIGSEGV },	    /* load from an unmapped page (NULL) */
	{ "ud", SIGILL },	    /* ud2 */
	{ "div", SIGFPE },	    /* integer divide by zero */
	{ "gp", SIGSEGV },	    /* load from a non-canonical address: #GP */
	{ "exec-nx", SIGSEGV },	    /* jump into a mapping without PROT_EXEC */
	{ "write-ro", SIGSEGV },    /* store into this program's own code */
	{ "kernel-read", SIGSEGV }, /* load from the kernel half */
	{ "priv", SIGSEGV },	    /* a privileged instruction (hlt) in ring 3: #GP */
	{ "int3", SIGTRAP },	    /* a breakpoint with no debugger: #BP */
	{ "int-n", SIGSEGV },	    /* int $0x81: a gate ring 3 may not use, #GP */
};

#define NMODES ((int)(sizeof(modes) / sizeof(modes[0])))

/* Each commits its fault; returning means the fault did not happen. */
int main(int argc, char **argv);

static void do_fault(const char *mode)
{
	if (strcmp(mode, "segv") == 0) {
		(void)*(volatile int *)0;
	} else if (strcmp(mode, "ud") == 0) {
		__asm__ volatile("ud2");
	} else if (strcmp(mode, "div") == 0) {
		__asm__ volatile("xor %%edx, %%edx\n\tmov $1, %%eax\n\txor %%ecx, %%ecx\n\tdiv %%ecx" ::
					 : "rax", "rcx", "rdx");
	} else if (strcmp(mode, "gp") == 0) {
		(void)*(volatile long *)BAD_PTR_NONCANON;
	} else if (strcmp(mode, "exec-nx") == 0) {
		unsigned char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return;
		p[0] = 0xc3; /* ret: were it executable, the call would come back */
		((void (*)(void))p)();
	} else if (strcmp(mode, "write-ro") == 0) {
		*(volatile unsigned char *)(uintptr_t)&main = 0xcc;
	} else if (strcmp(mode, "kernel-read") == 0) {
		(void)*(volatile long *)BAD_PTR_KERNEL;
	} else if (strcmp(mode, "priv") == 0) {
		__asm__ volatile("hlt");
	} else if (strcmp(mode, "int3") == 0) {
		__asm__ volatile("int3");
	} else if (strcmp(mode, "int-n") == 0) {
		__asm__ volatile("int $0x81");
	}
}

static int run_mode(const char *mode)
{
	char *argv[] = { (char *)test_self(), (char *)mode, NULL };
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		execve(test_self(), argv, environ);
		_exit(127);
	}
	return child_wait(pid);
}

int main(int argc, char **argv)
{
	test_self_init(argv[0], "t_fault");
	if (argc > 1) {
		for (int i = 0; i < NMODES; i++) {
			if (strcmp(argv[1], modes[i].mode) == 0) {
				do_fault(argv[1]);
				return 3; /* survived the fault */
			}
		}
		return 2; /* unknown mode */
	}
	for (int i = 0; i < NMODES; i++) {
		int status = run_mode(modes[i].mode);
		char name[32];
		const char *why = NULL;

		if (status < 0 || !WIFSIGNALED(status) || WTERMSIG(status) != modes[i].signal)
			why = report_why("child: %s, want killed by %s", child_describe(status),
					 child_signame(modes[i].signal));
		snprintf(name, sizeof(name), "fault_%s", modes[i].mode);
		for (char *c = name; *c; c++)
			if (*c == '-')
				*c = '_';
		report_case(name, why);
	}
	/* the machine and this process go on: a plain child still works */
	int status = run_mode("none");
	report_case("after_faults",
		    status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 2 ?
			    NULL :
			    report_why("child: %s, want exit 2", child_describe(status)));
	return report_done("t_fault");
}
