/*
 * ktest=user_mode: ring 3 end to end, without ELF or processes. A kernel
 * thread loads a hand-made address space (user_ktest_prog.asm copied to a
 * code page, a data page, a stack page) and drops to ring 3 with
 * arch_return_to_user. The program makes system calls and leaves their
 * results in its data page; others fault on purpose and must end in
 * user_fault's report while the kernel goes on. Before that, the page
 * tables and the user-copy routines are checked from the kernel side.
 *
 * The user threads become processes of their own (proc_adopt_kernel_thread),
 * with the hand-made address space as their page tables and the console as
 * their descriptors, so the real system calls and fault paths serve them.
 */
#include <arch/addr_space.h>
#include <arch/cpu.h>
#include <arch/memory.h>
#include <arch/smp.h>
#include <arch/uaccess.h>
#include <arch/user.h>

#include "ktest.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "mm/page_alloc.h"
#include "mmu.h"
#include "proc/process.h"
#include "proc/syscall.h"
#include "sched/sched.h"
#include "user_entry.h"

/* The programs' fixed addresses, as in user_ktest_prog.asm. */
#define UT_CODE	       0x400000UL
#define UT_DATA	       0x600000UL
#define UT_SHOOT       0x601000UL
#define UT_RO	       0x602000UL
#define UT_UNMAPPED    0x500000UL
#define UT_KERNEL_ADDR 0xffff800000100000UL /* the direct map: present, supervisor-only */
#define UT_TOP_PAGE    (USER_ADDR_END - PAGE_SIZE)
#define UT_SYS_UNKNOWN 335

/* Result slots (u64 index into the data page), as in user_ktest_prog.asm. */
enum {
	R_GETPID,
	R_WRITE,
	R_UNKNOWN,
	R_WRITE_LOW,
	R_WRITE_UNMAPPED,
	R_WRITE_KERNEL,
	R_FS,
	R_REGS,
	R_CALL,
	R_STARTED = 10,
};

#define UT_HELLO_LEN	  29	      /* "user_mode: hello from ring 3\n" */
#define UT_FS_SLOT	  (0x800 / 8) /* what the program reads at fs:0 */
#define UT_FS_MAGIC	  0xf5f5000011112222UL
#define CONTENDER_FS	  0x7000000000UL
#define POLL_NS		  1000000ULL
#define MIN_TICKS_IN_USER 2 /* timer ticks on the CPU while the program spun in ring 3 */

/* Wait statuses: exit(code) is code << 8, death by a signal is the signal. */
#define EXITED(code) ((code) << 8)
#define UT_SIGTRAP   5
#define UT_SIGILL    4
#define UT_SIGFPE    8
#define UT_SIGSEGV   11

/* The programs, in kernel rodata (user_ktest_prog.asm). */
extern const u8 utp_syscalls[], utp_syscalls_end[], utp_shoot[], utp_shoot_end[];
extern const u8 utp_ud2[], utp_ud2_end[], utp_write_unmapped[], utp_write_unmapped_end[];
extern const u8 utp_write_ro[], utp_write_ro_end[], utp_exec_nx[], utp_exec_nx_end[];
extern const u8 utp_hlt[], utp_hlt_end[], utp_read_kernel[], utp_read_kernel_end[];
extern const u8 utp_divide[], utp_divide_end[], utp_int3[], utp_int3_end[];

struct user_run {
	struct arch_mm mm;
	phys_addr_t code, data, stack, shoot, ro;
	u64 fs_base;   /* 0: leave it */
	uintptr_t rip; /* entry point */
};

static phys_addr_t zeroed_page(void)
{
	phys_addr_t pa = page_alloc(0);

	if (pa)
		memset(phys_to_virt(pa), 0, PAGE_SIZE);
	return pa;
}

static void teardown_run(struct user_run *r)
{
	arch_mm_destroy(&r->mm);
	for (phys_addr_t *pa = &r->code; pa <= &r->ro; pa++)
		if (*pa)
			page_free(*pa, 0);
}

/* A fresh address space with the program at UT_CODE and its data, stack, shoot and RO pages. */
static int setup_run(struct user_run *r, const u8 *prog, const u8 *end)
{
	size_t len = (size_t)(end - prog);

	memset(r, 0, sizeof(*r));
	r->rip = UT_CODE;
	if (len > PAGE_SIZE || arch_mm_init(&r->mm))
		return -1;
	for (phys_addr_t *pa = &r->code; pa <= &r->ro; pa++)
		if (!(*pa = zeroed_page()))
			goto fail;
	memcpy(phys_to_virt(r->code), prog, len);
	if (arch_mm_map(&r->mm, UT_CODE, r->code, PROT_READ | PROT_EXEC) ||
	    arch_mm_map(&r->mm, UT_DATA, r->data, PROT_READ | PROT_WRITE) ||
	    arch_mm_map(&r->mm, USER_STACK_TOP - PAGE_SIZE, r->stack, PROT_READ | PROT_WRITE) ||
	    arch_mm_map(&r->mm, UT_SHOOT, r->shoot, PROT_READ | PROT_WRITE) ||
	    arch_mm_map(&r->mm, UT_RO, r->ro, PROT_READ))
		goto fail;
	return 0;
fail:
	teardown_run(r);
	return -1;
}

static u64 *results(struct user_run *r)
{
	return phys_to_virt(r->data);
}

/* The user thread: load the address space and go to ring 3 for good. */
static void user_thread(void *arg)
{
	struct user_run *r = arg;
	struct user_regs regs;

	if (proc_adopt_kernel_thread(&r->mm))
		return;
	if (r->fs_base && arch_set_fs_base(r->fs_base))
		return;
	arch_user_regs_init(&regs, r->rip, USER_STACK_TOP);
	arch_return_to_user(&regs);
}

/* The last online CPU: away from the test's own when there are several. */
static u32 user_cpu(void)
{
	for (u32 cpu = sched_nr_cpus(); cpu-- > 0;)
		if (arch_cpu_online(cpu))
			return cpu;
	return 0;
}

/* Runs r to its end on cpu; returns the wait status. */
static int run_to_end(struct user_run *r, u32 cpu)
{
	struct task *t = kthread_create_on_cpu(user_thread, r, "user_mode", 0, cpu);

	return t ? task_reap(t) : -ENOMEM;
}

/* ---------------------------------------------------------------- page tables */

/* The arch_mm calls one by one; every table page comes back at the end. */
static int check_mm_calls(void)
{
	u64 free_before = page_alloc_free_pages();
	struct arch_mm mm;
	phys_addr_t f = page_alloc(0), pa;
	unsigned prot;

	KTEST_EXPECT(f);
	KTEST_EXPECT(arch_mm_init(&mm) == 0);
	KTEST_EXPECT(mm.nr_tables == 1);
	KTEST_EXPECT(arch_mm_map(&mm, 0, f, PROT_READ) == -EINVAL);
	KTEST_EXPECT(arch_mm_map(&mm, USER_ADDR_MIN - PAGE_SIZE, f, PROT_READ) == -EINVAL);
	KTEST_EXPECT(arch_mm_map(&mm, USER_ADDR_END, f, PROT_READ) == -EINVAL);
	KTEST_EXPECT(arch_mm_map(&mm, UT_KERNEL_ADDR, f, PROT_READ) == -EINVAL);
	KTEST_EXPECT(arch_mm_map(&mm, UT_CODE + 1, f, PROT_READ) == -EINVAL);
	KTEST_EXPECT(arch_mm_map(&mm, UT_CODE, f + 1, PROT_READ) == -EINVAL);
	KTEST_EXPECT(arch_mm_map(&mm, UT_CODE, f, 8) == -EINVAL);

	/* Lowest and highest user pages and one between: 1 + 3 + 1 + 3 table pages. */
	KTEST_EXPECT(arch_mm_map(&mm, USER_ADDR_MIN, f, PROT_READ) == 0);
	KTEST_EXPECT(arch_mm_map(&mm, UT_TOP_PAGE, f, PROT_READ | PROT_WRITE) == 0);
	KTEST_EXPECT(arch_mm_map(&mm, UT_CODE, f, PROT_NONE) == 0);
	KTEST_EXPECT(arch_mm_map(&mm, UT_CODE, f, PROT_READ) == -EEXIST);
	KTEST_EXPECT(mm.nr_tables == 8);
	KTEST_EXPECT(page_alloc_free_pages() == free_before - 1 - mm.nr_tables);

	KTEST_EXPECT(arch_mm_query(&mm, UT_CODE, &pa, &prot) && pa == f && prot == PROT_NONE);
	KTEST_EXPECT(arch_mm_query(&mm, UT_TOP_PAGE, &pa, &prot) && pa == f &&
		     prot == (PROT_READ | PROT_WRITE));
	KTEST_EXPECT(!arch_mm_query(&mm, UT_UNMAPPED, NULL, NULL));
	KTEST_EXPECT(!arch_mm_query(&mm, UT_KERNEL_ADDR, NULL, NULL));
	KTEST_EXPECT(arch_mm_protect(&mm, UT_CODE, PROT_READ | PROT_EXEC) == 0);
	KTEST_EXPECT(arch_mm_query(&mm, UT_CODE, NULL, &prot) && prot == (PROT_READ | PROT_EXEC));
	KTEST_EXPECT(arch_mm_protect(&mm, UT_UNMAPPED, PROT_READ) == -ENOENT);
	KTEST_EXPECT(arch_mm_unmap(&mm, UT_CODE) == f);
	KTEST_EXPECT(arch_mm_unmap(&mm, UT_CODE) == 0);
	KTEST_EXPECT(!arch_mm_query(&mm, UT_CODE, NULL, NULL));
	arch_mm_flush(&mm); /* loaded nowhere: nothing to do */

	arch_mm_destroy(&mm);
	page_free(f, 0);
	KTEST_EXPECT(page_alloc_free_pages() == free_before);
	return 0;
}

/* ---------------------------------------------------------------- user copies */

/* copy_*_user and strncpy_from_user against a loaded address space, interrupts off. */
static int check_copies(struct user_run *r)
{
	const char *top_end = (const char *)USER_ADDR_END;
	u8 *data = (u8 *)results(r), *top;
	char buf[64];
	phys_addr_t top_frame = zeroed_page();

	KTEST_EXPECT(top_frame && arch_mm_map(&r->mm, UT_TOP_PAGE, top_frame, PROT_READ) == 0);
	top = phys_to_virt(top_frame);
	memcpy(top + PAGE_SIZE - 3, "abc", 3); /* no NUL before the end of user space */
	for (int i = 0; i < 16; i++)
		data[i] = (u8)(0xa0 + i);
	memcpy(data + 0x100, "hello", 6);
	memcpy((u8 *)phys_to_virt(r->ro) + PAGE_SIZE - 8, "edge-ok!", 8);

	KTEST_EXPECT(copy_from_user(buf, (const void *)UT_DATA, 16) == 0);
	KTEST_EXPECT(memcmp(buf, data, 16) == 0);
	KTEST_EXPECT(copy_to_user((void *)(UT_DATA + 32), "xyz", 4) == 0 &&
		     memcmp(data + 32, "xyz", 4) == 0);
	KTEST_EXPECT(copy_to_user((void *)UT_RO, "no", 2) == -EFAULT); /* CR0.WP */
	memset(buf, 0x55, sizeof(buf));
	KTEST_EXPECT(copy_from_user(buf, (const void *)UT_UNMAPPED, 8) == -EFAULT && buf[0] == 0 &&
		     buf[7] == 0);
	/* From the end of the RO page into an unmapped one: half arrives, the rest is zeroed. */
	memset(buf, 0x55, sizeof(buf));
	KTEST_EXPECT(copy_from_user(buf, (const void *)(UT_RO + PAGE_SIZE - 8), 16) == -EFAULT);
	KTEST_EXPECT(memcmp(buf, "edge-ok!", 8) == 0);
	KTEST_EXPECT(buf[8] == 0 && buf[15] == 0 && buf[16] == 0x55);
	KTEST_EXPECT(copy_from_user(buf, (const void *)0x1000, 8) == -EFAULT);
	KTEST_EXPECT(copy_from_user(buf, (const void *)UT_KERNEL_ADDR, 8) == -EFAULT);
	KTEST_EXPECT(copy_from_user(buf, top_end - 4, 8) == -EFAULT);
	KTEST_EXPECT(copy_from_user(buf, (const void *)UT_UNMAPPED, 0) == 0);

	KTEST_EXPECT(strncpy_from_user(buf, (const char *)(UT_DATA + 0x100), sizeof(buf)) == 5 &&
		     strcmp(buf, "hello") == 0);
	KTEST_EXPECT(strncpy_from_user(buf, (const char *)(UT_DATA + 0x100), 6) == 5);
	KTEST_EXPECT(strncpy_from_user(buf, (const char *)(UT_DATA + 0x100), 5) == -ENAMETOOLONG);
	KTEST_EXPECT(strncpy_from_user(buf, (const char *)UT_UNMAPPED, sizeof(buf)) == -EFAULT);
	KTEST_EXPECT(strncpy_from_user(buf, top_end - 3, sizeof(buf)) == -EFAULT);
	KTEST_EXPECT(strncpy_from_user(buf, (const char *)UT_KERNEL_ADDR, sizeof(buf)) == -EFAULT);

	/* SMAP: the same read without stac must fault (and be fixed up). */
	if (uaccess_smap_on)
		KTEST_EXPECT(uaccess_read_nostac((const u64 *)UT_DATA) == -EFAULT);
	else
		KTEST_EXPECT(uaccess_read_nostac((const u64 *)UT_DATA) == *(const s64 *)data);
	KTEST_EXPECT(arch_mm_unmap(&r->mm, UT_TOP_PAGE) == top_frame);
	page_free(top_frame, 0);
	return 0;
}

static int check_uaccess(void)
{
	struct user_run r;
	unsigned long flags;
	int err;

	KTEST_EXPECT(setup_run(&r, utp_ud2, utp_ud2_end) == 0);
	/* Interrupts off: no migration away from the loaded tables, no demand paging. */
	flags = arch_irq_save();
	arch_mm_activate(&r.mm);
	err = check_copies(&r);
	arch_mm_activate(NULL);
	arch_irq_restore(flags);
	teardown_run(&r);
	return err;
}

/* ---------------------------------------------------------------- system calls */

/* Shares the user program's CPU with its own FS base; counts its turns during the ring-3 spin. */
struct contender {
	const volatile u64 *results;
	volatile bool stop;
	u64 turns_during_spin;
	u64 fs_wrong;
};

static void contend(void *arg)
{
	struct contender *c = arg;

	if (arch_set_fs_base(CONTENDER_FS))
		c->fs_wrong++;
	while (!READ_ONCE(c->stop)) {
		if (c->results[R_WRITE_KERNEL] && !c->results[R_FS])
			c->turns_during_spin++;
		if (arch_get_fs_base() != CONTENDER_FS)
			c->fs_wrong++;
	}
}

static int check_syscalls(void)
{
	static struct user_run r;
	static struct contender c;
	u32 cpu = user_cpu();
	u64 unknown_before = syscall_unknown_count(UT_SYS_UNKNOWN), ticks;
	struct task *user, *other;
	int pid, status;
	u64 *res;

	KTEST_EXPECT(setup_run(&r, utp_syscalls, utp_syscalls_end) == 0);
	res = results(&r);
	res[UT_FS_SLOT] = UT_FS_MAGIC;
	r.fs_base = UT_DATA + UT_FS_SLOT * 8;
	c = (struct contender){ .results = res };
	other = kthread_create_on_cpu(contend, &c, "user_mode_fs", 0, cpu);
	KTEST_EXPECT(other);
	ticks = arch_cpu_timer_ticks(cpu);
	user = kthread_create_on_cpu(user_thread, &r, "user_mode", 0, cpu);
	KTEST_EXPECT(user);
	pid = user->pid;
	while (READ_ONCE(user->state) != TASK_DEAD)
		sched_sleep_ns(POLL_NS);
	ticks = arch_cpu_timer_ticks(cpu) - ticks;
	WRITE_ONCE(c.stop, true);
	task_reap(other);
	status = task_reap(user);

	pr_info("KTEST user_mode: syscalls on CPU%u: status %#x, %llu ticks, "
		"contender %llu turns in the spin\n",
		cpu, status, (unsigned long long)ticks, (unsigned long long)c.turns_during_spin);
	KTEST_EXPECT(status == EXITED(42));
	KTEST_EXPECT(res[R_GETPID] == (u64)pid);
	KTEST_EXPECT(res[R_WRITE] == UT_HELLO_LEN);
	KTEST_EXPECT((s64)res[R_UNKNOWN] == -ENOSYS);
	KTEST_EXPECT(syscall_unknown_count(UT_SYS_UNKNOWN) == unknown_before + 1);
	KTEST_EXPECT((s64)res[R_WRITE_LOW] == -EFAULT);
	KTEST_EXPECT((s64)res[R_WRITE_UNMAPPED] == -EFAULT);
	KTEST_EXPECT((s64)res[R_WRITE_KERNEL] == -EFAULT);
	KTEST_EXPECT(res[R_FS] == UT_FS_MAGIC);
	KTEST_EXPECT(res[R_REGS] == 0);
	KTEST_EXPECT(res[R_CALL] == 0xca11);
	KTEST_EXPECT(ticks >= MIN_TICKS_IN_USER);
	KTEST_EXPECT(c.turns_during_spin > 0); /* switched away in ring 3 and back */
	KTEST_EXPECT(c.fs_wrong == 0);
	teardown_run(&r);
	return 0;
}

/* ---------------------------------------------------------------- TLB shoot-down */

/* The program writes a page in a loop; write-protecting it under the program must stop it. */
static int check_shootdown(void)
{
	static struct user_run r;
	u32 cpu = user_cpu(), here;
	u64 ipis_before, ipis;
	unsigned long flags;
	struct task *t;
	int status;

	KTEST_EXPECT(setup_run(&r, utp_shoot, utp_shoot_end) == 0);
	t = kthread_create_on_cpu(user_thread, &r, "user_mode", 0, cpu);
	KTEST_EXPECT(t);
	while (!READ_ONCE(results(&r)[R_STARTED]) && READ_ONCE(t->state) != TASK_DEAD)
		sched_sleep_ns(POLL_NS);
	flags = arch_irq_save(); /* stay on one CPU to know whether the flush had to send an IPI */
	here = arch_cpu_id();
	ipis_before = addr_space_flush_ipis();
	KTEST_EXPECT(arch_mm_protect(&r.mm, UT_SHOOT, PROT_READ) == 0);
	arch_mm_flush(&r.mm);
	ipis = addr_space_flush_ipis() - ipis_before;
	arch_irq_restore(flags);
	status = task_reap(t);
	pr_info("KTEST user_mode: shoot-down of CPU%u from CPU%u: %llu IPIs, status %#x\n", cpu,
		here, (unsigned long long)ipis, status);
	KTEST_EXPECT(status == UT_SIGSEGV);
	KTEST_EXPECT(here == cpu || ipis >= 1);
	teardown_run(&r);
	return 0;
}

/* ---------------------------------------------------------------- faults */

struct fault_case {
	const char *name;
	const u8 *prog, *end;
	int status;
	uintptr_t rip; /* 0: UT_CODE */
};

static const struct fault_case fault_cases[] = {
	{ "ud2", utp_ud2, utp_ud2_end, UT_SIGILL, 0 },
	{ "write to an unmapped page", utp_write_unmapped, utp_write_unmapped_end, UT_SIGSEGV, 0 },
	{ "write to a read-only page", utp_write_ro, utp_write_ro_end, UT_SIGSEGV, 0 },
	{ "execute a no-execute page", utp_exec_nx, utp_exec_nx_end, UT_SIGSEGV, 0 },
	{ "hlt", utp_hlt, utp_hlt_end, UT_SIGSEGV, 0 },
	{ "read kernel memory", utp_read_kernel, utp_read_kernel_end, UT_SIGSEGV, 0 },
	{ "divide by zero", utp_divide, utp_divide_end, UT_SIGFPE, 0 },
	{ "int3", utp_int3, utp_int3_end, UT_SIGTRAP, 0 }, /* vector 3's gate has DPL 3 */
	{ "non-canonical rip", utp_ud2, utp_ud2_end, UT_SIGSEGV, 0x800000000000UL },
};

static int check_faults(unsigned int *reported)
{
	static struct user_run r;

	*reported = 0;
	for (size_t i = 0; i < ARRAY_SIZE(fault_cases); i++) {
		const struct fault_case *fc = &fault_cases[i];
		int status;

		if (fc->prog == utp_exec_nx && !paging_nx_bit())
			continue; /* no NX: data pages are executable */
		KTEST_EXPECT(setup_run(&r, fc->prog, fc->end) == 0);
		if (fc->rip)
			r.rip = fc->rip;
		status = run_to_end(&r, user_cpu());
		teardown_run(&r);
		if (status != fc->status) {
			pr_err("KTEST user_mode: %s ended with status %#x, expected %#x\n",
			       fc->name, status, fc->status);
			return -1;
		}
		(*reported)++;
	}
	return 0;
}

KTEST(user_mode);
static int user_mode(void)
{
	unsigned int faults;

	KTEST_EXPECT(check_mm_calls() == 0);
	KTEST_EXPECT(check_uaccess() == 0);
	KTEST_EXPECT(check_syscalls() == 0);
	KTEST_EXPECT(check_shootdown() == 0);
	KTEST_EXPECT(check_faults(&faults) == 0);
	pr_info("KTEST user_mode: SMEP %s, SMAP %s, NX %s; %u faults reported\n",
		user_smep_on() ? "on" : "off", uaccess_smap_on ? "on" : "off",
		paging_nx_bit() ? "on" : "off", faults);
	return 0;
}
