/*
 * Host tests of the user-register logic: the accessors kernel/ uses for
 * system-call numbers and arguments (arch/user.h), the checks every return
 * to ring 3 makes before iretq or sysretq (user_entry.h), and how an
 * exception from ring 3 is decoded for user_fault.
 */
#include <string.h>

#include <arch/user.h>

#include "unit.h"
#include "user_entry.h"

static struct user_regs after_syscall(u64 rip, u64 rflags)
{
	struct user_regs r;

	memset(&r, 0, sizeof(r));
	r.rip = rip;
	r.rcx = rip; /* SYSCALL leaves rip in rcx and rflags in r11 */
	r.rflags = rflags;
	r.r11 = rflags;
	r.cs = USER_CS;
	r.ss = USER_DS;
	r.vector = USER_REGS_SYSCALL;
	return r;
}

START_TEST(test_syscall_accessors)
{
	struct user_regs r;

	memset(&r, 0, sizeof(r));
	r.rax = 39;
	r.rdi = 1, r.rsi = 2, r.rdx = 3, r.r10 = 4, r.r8 = 5, r.r9 = 6;
	r.rcx = 99; /* the fourth argument is r10, not rcx as in a C call */
	ck_assert_int_eq(user_regs_syscall_nr(&r), 39);
	for (int i = 0; i < 6; i++)
		ck_assert_int_eq(user_regs_arg(&r, i), i + 1);
	ck_assert_int_eq(user_regs_arg(&r, -1), 0);
	ck_assert_int_eq(user_regs_arg(&r, 6), 0);
	r.rdi = (u64)-14;
	ck_assert_int_eq(user_regs_arg(&r, 0), -14); /* a negative argument stays negative */

	user_regs_set_return(&r, -38);
	ck_assert_uint_eq(r.rax, (u64)-38);
	user_regs_set_ip(&r, 0x401000);
	user_regs_set_sp(&r, 0x7ffffffdd000);
	ck_assert_uint_eq(user_regs_ip(&r), 0x401000);
	ck_assert_uint_eq(user_regs_sp(&r), 0x7ffffffdd000);
	ck_assert_uint_eq(r.rip, 0x401000);
	ck_assert_uint_eq(r.rsp, 0x7ffffffdd000);
}
END_TEST

START_TEST(test_sanitize)
{
	struct user_regs r;

	memset(&r, 0, sizeof(r));
	r.cs = KERNEL_CS;
	r.ss = KERNEL_DS;
	r.rflags = RFLAGS_IOPL | RFLAGS_NT | RFLAGS_RF | (1UL << 17) /* VM */ | RFLAGS_CF |
		   RFLAGS_DF | RFLAGS_AC;
	user_regs_sanitize(&r);
	ck_assert_uint_eq(r.cs, USER_CS);
	ck_assert_uint_eq(r.ss, USER_DS);
	ck_assert_uint_eq(r.rflags, RFLAGS_IF | RFLAGS_FIXED | RFLAGS_CF | RFLAGS_DF | RFLAGS_AC);
	ck_assert_uint_eq(r.cs & 3, 3);
	ck_assert_uint_eq(r.ss & 3, 3);
}
END_TEST

START_TEST(test_return_paths)
{
	u64 flags = RFLAGS_IF | RFLAGS_FIXED | RFLAGS_ZF;
	struct user_regs r = after_syscall(0x401005, flags);

	ck_assert(user_regs_can_sysret(&r));
	ck_assert(user_regs_can_iret(&r));

	/* Registers rewritten since the call (execve, a signal): iretq. */
	r.rcx = 0;
	ck_assert(!user_regs_can_sysret(&r));
	r = after_syscall(0x401005, flags);
	r.r11 = 0;
	ck_assert(!user_regs_can_sysret(&r));

	/* The last page below the hole and beyond: never sysret. */
	r = after_syscall(USER_ADDR_END - 2, flags);
	ck_assert(user_regs_can_sysret(&r));
	r = after_syscall(USER_ADDR_END, flags);
	ck_assert(!user_regs_can_sysret(&r));
	ck_assert(user_regs_can_iret(&r));
	r = after_syscall(USER_CANONICAL_END, flags);
	ck_assert(!user_regs_can_sysret(&r));
	ck_assert(!user_regs_can_iret(&r));
	r = after_syscall(0xffffffff80100000UL, flags);
	ck_assert(!user_regs_can_iret(&r));

	/* Single-stepping: TF through sysret would trap on the wrong instruction. */
	r = after_syscall(0x401005, flags | RFLAGS_TF);
	ck_assert(!user_regs_can_sysret(&r));
	r = after_syscall(0x401005, flags);
	r.cs = KERNEL_CS;
	ck_assert(!user_regs_can_sysret(&r));
}
END_TEST

START_TEST(test_fault_decoding)
{
	bool write;

	/* vm_fault gets missing pages and writes to present ones (copy-on-write)... */
	ck_assert(arch_user_fault_is_page(14, 0, &write) && !write);
	ck_assert(arch_user_fault_is_page(14, 0x2 | 0x4, &write) && write);
	ck_assert(arch_user_fault_is_page(14, 0x1 | 0x2 | 0x4, &write) && write);
	ck_assert(arch_user_fault_is_page(14, 0x10 | 0x4, &write) && !write);
	/* ...never a refused read or fetch of a present page, nor another exception. */
	ck_assert(!arch_user_fault_is_page(14, 0x1 | 0x4, &write));
	ck_assert(!arch_user_fault_is_page(14, 0x1 | 0x10 | 0x4, &write));
	ck_assert(!arch_user_fault_is_page(13, 0x2, &write) && !write);

	ck_assert_int_eq(arch_user_fault_signal(6), 4);	  /* SIGILL */
	ck_assert_int_eq(arch_user_fault_signal(0), 8);	  /* SIGFPE */
	ck_assert_int_eq(arch_user_fault_signal(3), 5);	  /* SIGTRAP */
	ck_assert_int_eq(arch_user_fault_signal(17), 7);  /* SIGBUS */
	ck_assert_int_eq(arch_user_fault_signal(13), 11); /* SIGSEGV */
	ck_assert_int_eq(arch_user_fault_signal(14), 11);

	ck_assert_str_eq(arch_user_fault_cause(6, 0), "invalid opcode");
	ck_assert_str_eq(arch_user_fault_cause(14, 0x6), "page fault (write, not present)");
	ck_assert_str_eq(arch_user_fault_cause(14, 0x5), "page fault (read, protection)");
	ck_assert_str_eq(arch_user_fault_cause(14, 0x15), "page fault (exec, protection)");
	ck_assert_str_eq(arch_user_fault_cause(31, 0), "exception");
}
END_TEST

Suite *user_regs_suite(void)
{
	Suite *s = suite_create("user_regs");
	TCase *tc = tcase_create("user_regs");

	tcase_add_test(tc, test_syscall_accessors);
	tcase_add_test(tc, test_sanitize);
	tcase_add_test(tc, test_return_paths);
	tcase_add_test(tc, test_fault_decoding);
	suite_add_tcase(s, tc);
	return s;
}
