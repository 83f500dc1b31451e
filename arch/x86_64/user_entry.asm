; Ring 3 to ring 0 and back. syscall_entry is the SYSCALL target (LSTAR):
; it builds struct user_regs at the top of the task's kernel stack, the
; same frame an interrupt from ring 3 leaves there, and returns with
; sysretq when the registers allow it, else through user_return_iret,
; which every return to ring 3 by iretq shares.

%include "arch/x86_64/frame.inc"

%define USER_REGS_SYSCALL	0x100
%define CPU_LOCAL_SYSCALL_RSP	8	; offsets in struct cpu_local
%define CPU_LOCAL_USER_RSP	16

extern arch_syscall
global syscall_entry, user_return_iret, user_iret

section .text
bits 64

; SYSCALL left rip in rcx, rflags in r11, and masked IF, DF, TF and AC
; (FMASK): nothing can interrupt us but an NMI or a machine check, and
; those check the GS base themselves.
syscall_entry:
	swapgs
	mov [gs:CPU_LOCAL_USER_RSP], rsp
	mov rsp, [gs:CPU_LOCAL_SYSCALL_RSP]
	push USER_DS			; ss
	push qword [gs:CPU_LOCAL_USER_RSP] ; rsp
	push r11			; rflags
	push USER_CS			; cs
	push rcx			; rip
	push rax			; error code slot: the system-call number
	push USER_REGS_SYSCALL		; vector slot
	PUSH_REGS
	xor ebp, ebp			; call traces end here
	mov rdi, rsp
	sti
	call arch_syscall		; dispatch and exit work; rax: may we sysret?
	cli
	test rax, rax
	jz user_return_iret
	; arch_syscall checked rcx == rip, r11 == rflags, rip canonical.
	POP_REGS
	mov rsp, [rsp + FRAME_RSP - FRAME_VECTOR]
	swapgs
	o64 sysret

; user_iret(regs): enter ring 3 with every register from regs (interrupts off).
user_iret:
	mov rsp, rdi
	; fall through

; rsp = struct user_regs, interrupts off, kernel GS base.
user_return_iret:
	POP_REGS
	add rsp, 16			; vector and error code
	swapgs
	iretq
