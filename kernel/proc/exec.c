/*
 * execve: replaces the calling process's image with a static ELF program
 * from the initrd. Everything that can fail is done first, into a new
 * address space: the file is found and checked (elf_parse), its segments
 * mapped, the stack built (argc, argv, envp, the auxiliary vector, the
 * strings). Only then does the process let go of its old image: other
 * threads are ended, the address space swapped, close-on-exec descriptors
 * closed, handlers reset, the FPU state and TLS cleared.
 *
 * The initial stack, from USER_STACK_TOP down: the argument and
 * environment strings, the platform string and AT_RANDOM's 16 bytes, then
 * (16-byte aligned, where rsp points at entry) argc, argv[], NULL, envp[],
 * NULL, auxv pairs ending with AT_NULL. The x86-64 psABI's layout.
 */
#include <arch/fpu.h>
#include <arch/memory.h>
#include <arch/time.h>
#include <arch/uaccess.h>
#include <arch/user.h>

#include "fs/cwd.h"
#include "fs/fdtable.h"
#include "fs/namei.h"
#include "fs/open.h"
#include "fs/stat.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "mm/page_alloc.h"
#include "mm/vm.h"
#include "proc/elf.h"
#include "proc/proc_internal.h"
#include "proc/syscall.h"
#include "sched/sched.h"
#include "time/posix_timers.h"
#include "trace/trace.h"

#define PATH_MAX  4096
#define ARG_MAX	  (128UL * 1024) /* argument and environment strings together, NULs included */
#define ARG_ORDER 5		 /* 2^5 pages = ARG_MAX */
#define MAX_ARGS  4096		 /* pointers in argv and envp together */

#define AT_NULL	    0
#define AT_PHDR	    3
#define AT_PHENT    4
#define AT_PHNUM    5
#define AT_PAGESZ   6
#define AT_BASE	    7
#define AT_FLAGS    8
#define AT_ENTRY    9
#define AT_UID	    11
#define AT_EUID	    12
#define AT_GID	    13
#define AT_EGID	    14
#define AT_PLATFORM 15
#define AT_HWCAP    16
#define AT_CLKTCK   17
#define AT_SECURE   23
#define AT_RANDOM   25
#define AT_EXECFN   31
#define AUXV_PAIRS  18 /* with AT_NULL */

_Static_assert((PAGE_SIZE << ARG_ORDER) == ARG_MAX, "argument buffer size");

/* The strings execve passes on, copied into the kernel: argc then envc NUL-terminated strings. */
struct exec_args {
	char *buf;
	size_t used;
	u32 argc, envc;
};

static int args_add(struct exec_args *a, const char *s, size_t len)
{
	if (a->used + len + 1 > ARG_MAX || a->argc + a->envc >= MAX_ARGS)
		return -E2BIG;
	memcpy(a->buf + a->used, s, len);
	a->buf[a->used + len] = '\0';
	a->used += len + 1;
	return 0;
}

/* Copies a user string array (NULL-terminated); *count gets its length. */
static int args_copy_user(struct exec_args *a, char *const *uvec, u32 *count)
{
	for (u32 i = 0; uvec; i++) {
		char *ustr;
		long len;

		if (copy_from_user(&ustr, &uvec[i], sizeof(ustr)))
			return -EFAULT;
		if (!ustr)
			break;
		if (a->argc + a->envc >= MAX_ARGS)
			return -E2BIG;
		len = strncpy_from_user(a->buf + a->used, ustr, ARG_MAX - a->used);
		if (len == -ENAMETOOLONG)
			return -E2BIG;
		if (len < 0)
			return (int)len;
		a->used += (size_t)len + 1;
		(*count)++;
	}
	return 0;
}

static u64 random_u64(u64 *state)
{
	/* xorshift64*, seeded from the cycle counter: unpredictable enough for AT_RANDOM's canary. */
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * 0x2545f4914f6cdd1dULL;
}

/* Builds the initial stack in vm; *sp gets where rsp must point. */
static int build_stack(struct vm *vm, const struct exec_args *a, const struct elf_image *img,
		       const char *path, uintptr_t *sp)
{
	static const char platform[] = "x86_64";
	u32 nptrs = 1 + a->argc + 1 + a->envc + 1 + 2 * AUXV_PAIRS;
	uintptr_t top = USER_STACK_TOP, strings, plat, rnd, execfn, p;
	u64 seed = arch_cycles() | 1, random[2];
	u64 *vec;
	size_t pathlen = strlen(path) + 1;
	struct vm_rlimits rlim;
	int err;
	u32 i = 0;

	vm_get_rlimits(vm, &rlim);

	strings = top - a->used;
	execfn = strings - pathlen;
	plat = execfn - sizeof(platform);
	rnd = (plat - sizeof(random)) & ~15UL;
	p = (rnd - nptrs * sizeof(u64)) & ~15UL;
	/* A quarter of the stack, as Linux allows (of RLIMIT_STACK, within its ceilings). */
	if (top - p > MIN(MAX(rlim.stack_cur, VM_STACK_MIN), USER_STACK_SIZE) / 4)
		return -E2BIG;
	random[0] = random_u64(&seed);
	random[1] = random_u64(&seed);
	err = vm_write(vm, strings, a->buf, a->used);
	err = err ?: vm_write(vm, execfn, path, pathlen);
	err = err ?: vm_write(vm, plat, platform, sizeof(platform));
	err = err ?: vm_write(vm, rnd, random, sizeof(random));
	if (err)
		return err;
	vec = kmalloc(nptrs * sizeof(u64));
	if (!vec)
		return -ENOMEM;
	vec[i++] = a->argc;
	for (u32 n = 0, off = 0; n < a->argc + a->envc; n++) {
		if (n == a->argc)
			vec[i++] = 0; /* argv's NULL */
		vec[i++] = strings + off;
		off += strlen(a->buf + off) + 1;
	}
	if (a->envc == 0)
		vec[i++] = 0;
	vec[i++] = 0; /* envp's NULL */
#define AUX(type, value)                 \
	do {                             \
		vec[i++] = (type);       \
		vec[i++] = (u64)(value); \
	} while (0)
	AUX(AT_PHDR, img->phdr_vaddr);
	AUX(AT_PHENT, img->phentsize);
	AUX(AT_PHNUM, img->phnum);
	AUX(AT_PAGESZ, PAGE_SIZE);
	AUX(AT_BASE, 0);
	AUX(AT_FLAGS, 0);
	AUX(AT_ENTRY, img->entry);
	AUX(AT_UID, 0);
	AUX(AT_EUID, 0);
	AUX(AT_GID, 0);
	AUX(AT_EGID, 0);
	AUX(AT_PLATFORM, plat);
	AUX(AT_HWCAP, 0);
	AUX(AT_CLKTCK, 100);
	AUX(AT_SECURE, 0);
	AUX(AT_RANDOM, rnd);
	AUX(AT_EXECFN, execfn);
#undef AUX
	vec[i++] = AT_NULL;
	vec[i++] = 0;
	err = vm_write(vm, p, vec, i * sizeof(u64));
	kfree(vec);
	*sp = p;
	return err;
}

/*
 * Finds and checks the program (a relative path starts at the working
 * directory; symlinks are followed); data and size get its bytes in the
 * initrd. Only an initrd regular file with an execute bit can run.
 */
static int find_program(const char *path, const void **data, size_t *size, const char **exe)
{
	struct path_walk *w = kmalloc(sizeof(*w));
	int err;

	if (!w)
		return -ENOMEM;
	err = path_walk_at(AT_FDCWD, path, true, w);
	if (!err && (w->node.kind != NODE_FILE || !(w->node.mode & 0111)))
		err = -EACCES;
	if (!err) {
		*data = w->node.data;
		*size = w->node.size;
		*exe = proc_exe_intern(w->path);
	}
	kfree(w);
	return err;
}

/* A new address space with img loaded; it inherits old's resource limits (old may be NULL). */
static struct vm *load_image(const void *data, size_t size, struct elf_image *img, struct vm *old,
			     int *err)
{
	struct vm_rlimits rlim;
	struct vm *vm;

	*err = elf_parse(data, size, img);
	if (*err)
		return NULL;
	vm = vm_create();
	if (!vm) {
		*err = -ENOMEM;
		return NULL;
	}
	if (old) {
		vm_get_rlimits(old, &rlim);
		vm_set_rlimits(vm, &rlim);
	}
	for (unsigned i = 0; i < img->nr_segments && !*err; i++) {
		const struct elf_segment *s = &img->seg[i];

		*err = vm_map_segment(vm, s->vaddr, s->memsz, (const u8 *)data + s->offset,
				      s->filesz, s->prot);
	}
	if (!*err) {
		vm_set_brk_start(vm, img->end);
		*err = vm_setup_stack(vm);
	}
	if (*err) {
		vm_put(vm);
		return NULL;
	}
	return vm;
}

/*
 * Ends every other thread of p; the caller is the one that stays. 0, or
 * -EAGAIN if a fatal signal came for the caller first (as Linux's
 * de_thread): the process is dying, and its image stays as it was.
 */
static int end_other_threads(struct process *p)
{
	struct task *self = current_task();
	unsigned long irq = spin_lock_irqsave(&proc_lock);
	struct list_head *pos;

	p->exec_task = self;
	list_for_each (pos, &p->threads) {
		struct task *t = list_entry(pos, struct task, thread_node);

		if (t != self)
			signal_kill_thread(t);
	}
	spin_unlock_irqrestore(&proc_lock, irq);
	while (READ_ONCE(p->nr_threads) > 1 && !signal_fatal_pending(self))
		sched_sleep_ns(1000000);
	irq = spin_lock_irqsave(&proc_lock);
	p->exec_task = NULL;
	spin_unlock_irqrestore(&proc_lock, irq);
	return READ_ONCE(p->nr_threads) > 1 ? -EAGAIN : 0;
}

static void set_comm(struct process *p, const char *path)
{
	const char *base = strrchr(path, '/');
	struct task *t = current_task();

	base = base ? base + 1 : path;
	memset(p->comm, 0, sizeof(p->comm));
	strlcpy(p->comm, base, sizeof(p->comm));
	memcpy(t->comm, p->comm, sizeof(t->comm));
}

static int exec_args_run(const char *path, const struct exec_args *a, struct user_regs *regs)
{
	struct process *p = current_process();
	struct task *t = current_task();
	const void *data;
	struct elf_image img;
	struct vm *vm, *old;
	unsigned long irq;
	uintptr_t sp = 0, args_at;
	size_t size, args_len = 0;
	const char *exe = NULL;
	int err = find_program(path, &data, &size, &exe);

	if (err)
		return err;
	vm = load_image(data, size, &img, p->vm, &err);
	if (!vm)
		return err;
	err = build_stack(vm, a, &img, path, &sp);
	args_at = USER_STACK_TOP - a->used;
	for (u32 n = 0; n < a->argc; n++)
		args_len += strlen(a->buf + args_len) + 1;
	if (err) {
		vm_put(vm);
		return err;
	}

	/* The point of no return, once the other threads have gone. */
	if (READ_ONCE(p->nr_threads) > 1)
		err = end_other_threads(p);
	if (err) {
		vm_put(vm);
		return err;
	}
	/* The switch and the scheduler's view of t->mm change together; the OOM killer reads p->vm. */
	irq = spin_lock_irqsave(&proc_lock);
	old = p->vm;
	p->vm = vm;
	t->mm = vm_arch_mm(vm);
	vm_activate(vm);
	spin_unlock_irqrestore(&proc_lock, irq);
	if (old)
		vm_put(old);
	vfork_release(t); /* off the vfork parent's memory now */
	files_close_on_exec(p->files);
	signal_reset_for_exec(p);
	posix_timers_exit(p); /* execve deletes the POSIX timers, as Linux's exit_itimers */
	arch_fpu_reset();
	arch_set_fs_base(0);
	t->clear_child_tid = NULL;
	set_comm(p, path);
	p->exe = exe;
	p->arg_start = args_at;
	p->arg_end = args_at + args_len;
	trace_sched_process_exec(t, path);
	arch_user_regs_init(regs, img.entry, sp);
	return 0;
}

int exec_kernel(const char *path, char *const argv[], char *const envp[], struct user_regs *regs)
{
	struct exec_args a = { .buf = alloc_pages(ARG_ORDER) };
	int err = 0;

	if (!a.buf)
		return -ENOMEM;
	for (u32 i = 0; argv && argv[i] && !err; i++, a.argc++)
		err = args_add(&a, argv[i], strlen(argv[i]));
	for (u32 i = 0; envp && envp[i] && !err; i++, a.envc++)
		err = args_add(&a, envp[i], strlen(envp[i]));
	if (!err)
		err = exec_args_run(path, &a, regs);
	free_pages(a.buf, ARG_ORDER);
	return err;
}

static long call_execve(struct user_regs *regs)
{
	const char *upath = (const char *)user_regs_arg(regs, 0);
	char *const *uargv = (char *const *)user_regs_arg(regs, 1);
	char *const *uenvp = (char *const *)user_regs_arg(regs, 2);
	struct exec_args a = { .buf = alloc_pages(ARG_ORDER) };
	char *path = kmalloc(PATH_MAX);
	long err;

	if (!a.buf || !path) {
		err = -ENOMEM;
		goto out;
	}
	err = strncpy_from_user(path, upath, PATH_MAX);
	if (err >= 0)
		err = err == 0 ? -ENOENT : args_copy_user(&a, uargv, &a.argc);
	if (err >= 0)
		err = args_copy_user(&a, uenvp, &a.envc);
	if (err >= 0)
		err = exec_args_run(path, &a, regs);
out:
	if (a.buf)
		free_pages(a.buf, ARG_ORDER);
	kfree(path);
	/* Success: rax of the new image is 0; the return value goes there. */
	return err;
}
SYSCALL_REGISTER(SYS_execve, call_execve);
