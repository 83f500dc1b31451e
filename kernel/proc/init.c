/*
 * Starting user space: the first process, pid 1, runs /init from the
 * initrd with argv { "/init", INIT, ARGS... }: INIT is the `init=` option's
 * value (what /init should run instead of the shell; user/init.c splits
 * it at blanks) and ARGS the words after a bare "--" on the command line.
 * Its descriptors 0, 1 and 2 are the console. `noinit` keeps user space
 * out: the run ends when boot is done, which kernel-only tests want.
 */
#include <arch/fpu.h>
#include <arch/user.h>

#include "cmdline.h"
#include "fs/console.h"
#include "fs/cwd.h"
#include "fs/fdtable.h"
#include "fs/file.h"
#include "fs/initrd.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "panic.h"
#include "printk.h"
#include "proc/init.h"
#include "proc/proc_internal.h"
#include "proc/signal.h"
#include "proc/syscall.h"
#include "sched/sched.h"

#define INIT_PATH     "/init"
#define INIT_MAX_ARGS 128 /* argv entries, NULL included: more than user/init.c takes (64) */

static const char *init_cmd = "";
BOOT_OPTION_STRING(
	init, "init", &init_cmd, NULL,
	"what /init runs instead of the shell (\"/bin/prog arg\"); it powers off when that ends");

static bool noinit;
BOOT_OPTION_BOOL(noinit, "noinit", &noinit, "do not start user space: the run ends after boot");

static char *const init_envp[] = { "PATH=/bin:/tests", "HOME=/", "TERM=vt100", NULL };

/* Frees what a dying task still holds of the arch (its FPU area). */
static void proc_task_free(struct task *t)
{
	arch_fpu_free(&t->ctx);
	signal_free_thread(t);
}

/*
 * argv for /init: { "/init", init=, words after "--" }; the words live in
 * buf, each cut off by a NUL. Words beyond INIT_MAX_ARGS - 1 entries are
 * dropped with a warning saying how many.
 */
static u32 init_argv(char **argv, char *buf, size_t size)
{
	u32 n = 0, dropped = 0;
	char *p = buf;

	argv[n++] = INIT_PATH;
	if (init_cmd[0])
		argv[n++] = (char *)init_cmd;
	strlcpy(buf, cmdline_init_args(), size);
	for (;;) {
		while (*p == ' ' || *p == '\t')
			*p++ = '\0';
		if (!*p)
			break;
		if (n < INIT_MAX_ARGS - 1)
			argv[n++] = p;
		else
			dropped++;
		while (*p && *p != ' ' && *p != '\t')
			p++;
	}
	argv[n] = NULL;
	if (dropped)
		pr_warn("init: %u words after -- dropped: /init takes at most %d arguments\n",
			dropped, INIT_MAX_ARGS - 2);
	return n;
}

/* The first code of pid 1: become a process with the console, exec /init, enter ring 3. */
static void init_thread(void *arg)
{
	struct process *p = arg;
	char **argv = kmalloc(INIT_MAX_ARGS * sizeof(*argv)), *buf = kmalloc(CMDLINE_MAX);
	struct user_regs regs;
	int err;

	err = buf && argv ? proc_console_fds(p->files) : -ENOMEM;
	if (!err) {
		init_argv(argv, buf, CMDLINE_MAX);
		err = exec_kernel(INIT_PATH, argv, init_envp, &regs);
	}
	kfree(argv);
	kfree(buf);
	if (err) {
		pr_err("init: cannot run %s: error %d; the run ends\n", INIT_PATH, err);
		machine_finish(EXIT_FAIL);
	}
	arch_return_to_user(&regs);
}

bool proc_start_init(void)
{
	struct process *p;
	struct task *t;
	unsigned long irq;

	task_free_hook = proc_task_free;
	if (noinit)
		return false;
	if (initrd_find(INIT_PATH, NULL, NULL, NULL)) {
		pr_warn("init: no %s in the initrd (or no initrd): no user space\n", INIT_PATH);
		return false;
	}
	p = process_alloc();
	if (p) {
		p->files = files_create();
		p->fs = fs_struct_create();
	}
	t = p && p->files && p->fs ? task_create(init_thread, p, "init", 0, NULL, 1) : NULL;
	if (!t || arch_fpu_alloc(&t->ctx)) {
		pr_err("init: out of memory\n");
		return false;
	}
	strlcpy(p->comm, "init", sizeof(p->comm));
	p->pid = t->pid;
	p->leader = t;
	irq = spin_lock_irqsave(&proc_lock);
	process_link_locked(p, NULL, t);
	init_process = p;
	spin_unlock_irqrestore(&proc_lock, irq);
	pr_info("init: starting %s%s%s\n", INIT_PATH, init_cmd[0] ? " " : "", init_cmd);
	task_wake_new(t);
	return true;
}
