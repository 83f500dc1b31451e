; Ring-3 programs for the user_mode self-test (user_ktest.c). They are
; data to the kernel: the test copies each one to a user code page at
; UT_CODE and runs it there, so they are position-independent and reach
; their pages at the fixed addresses below (the same as in user_ktest.c).

%define UT_DATA		0x600000	; results page, RW
%define UT_SHOOT	0x601000	; page the TLB test write-protects under the program
%define UT_RO		0x602000	; read-only page
%define UT_UNMAPPED	0x500000
%define KERNEL_ADDR	0xffff800000100000	; the direct map: present, supervisor-only

%define SYS_write	1
%define SYS_getpid	39
%define SYS_exit	60
%define SYS_UNKNOWN	335		; unassigned on Linux x86-64

%define SPIN_LOOPS	(1 << 24)	; long enough for timer ticks and preemption in ring 3
%define SHOOT_LOOPS	(1 << 25)

; Results: 8-byte slots in the data page.
%define R_GETPID	0
%define R_WRITE		8
%define R_UNKNOWN	16
%define R_WRITE_LOW	24
%define R_WRITE_UNMAPPED 32
%define R_WRITE_KERNEL	40
%define R_FS		48
%define R_REGS		56
%define R_CALL		64
%define R_STARTED	80

%macro PATTERN 2			; register, byte
	mov %1, 0x0101010101010101 * %2
%endmacro

%macro CHECK 2				; rax |= register ^ pattern (rdx scratch)
	mov rdx, 0x0101010101010101 * %2
	xor rdx, %1
	or rax, rdx
%endmacro

global utp_syscalls, utp_syscalls_end, utp_shoot, utp_shoot_end
global utp_ud2, utp_ud2_end, utp_write_unmapped, utp_write_unmapped_end
global utp_write_ro, utp_write_ro_end, utp_exec_nx, utp_exec_nx_end
global utp_hlt, utp_hlt_end, utp_read_kernel, utp_read_kernel_end
global utp_divide, utp_divide_end, utp_int3, utp_int3_end

section .rodata
bits 64

; System calls and their results, a long stretch in ring 3, then exit(42).
utp_syscalls:
	mov rbx, UT_DATA
	PATTERN rbp, 0x5b
	PATTERN r8, 0x08
	PATTERN r9, 0x09
	PATTERN r10, 0x10
	PATTERN r12, 0x12
	PATTERN r13, 0x13
	PATTERN r14, 0x14
	PATTERN r15, 0x15
	push 0x7a7a			; the stack must survive too

	mov eax, SYS_getpid
	syscall
	mov [rbx + R_GETPID], rax

	mov eax, SYS_write
	mov edi, 1
	lea rsi, [rel .msg]
	mov edx, .msg_end - .msg
	syscall
	mov [rbx + R_WRITE], rax

	mov eax, SYS_UNKNOWN
	syscall
	mov [rbx + R_UNKNOWN], rax

	mov eax, SYS_write		; below user space: access_ok says no
	mov edi, 1
	mov esi, 0x1000
	mov edx, 8
	syscall
	mov [rbx + R_WRITE_LOW], rax

	mov eax, SYS_write		; in user space but unmapped: the fix-up says no
	mov edi, 1
	mov esi, UT_UNMAPPED
	mov edx, 8
	syscall
	mov [rbx + R_WRITE_UNMAPPED], rax

	mov eax, SYS_write		; a kernel address
	mov edi, 1
	mov rsi, KERNEL_ADDR
	mov edx, 8
	syscall
	mov [rbx + R_WRITE_KERNEL], rax

	mov ecx, SPIN_LOOPS
.spin:
	dec rcx
	jnz .spin

	mov rax, [fs:0]			; the FS base survived the switches
	mov [rbx + R_FS], rax

	pop rax
	xor rax, 0x7a7a
	CHECK rbp, 0x5b
	CHECK r8, 0x08
	CHECK r9, 0x09
	CHECK r10, 0x10
	CHECK r12, 0x12
	CHECK r13, 0x13
	CHECK r14, 0x14
	CHECK r15, 0x15
	mov [rbx + R_REGS], rax		; 0 if every register held

	call .callee
	mov [rbx + R_CALL], rax

	mov eax, SYS_exit
	mov edi, 42
	syscall
	ud2				; not reached

.callee:
	mov eax, 0xca11
	ret
.msg:
	db "user_mode: hello from ring 3", 10
.msg_end:
utp_syscalls_end:

; Writes UT_SHOOT until the write faults (the test makes it read-only and
; flushes the TLBs), or gives up with exit(99).
utp_shoot:
	mov rbx, UT_DATA
	mov rsi, UT_SHOOT
	mov qword [rsi], 1		; the writable translation is now cached
	mov qword [rbx + R_STARTED], 1
	mov rcx, SHOOT_LOOPS
.write:
	mov [rsi], rcx
	dec rcx
	jnz .write
	mov eax, SYS_exit
	mov edi, 99
	syscall
utp_shoot_end:

; One fault each; every one must end in user_fault's report.
utp_ud2:
	ud2
utp_ud2_end:

utp_write_unmapped:
	mov eax, UT_UNMAPPED
	mov qword [rax], 1
	ud2
utp_write_unmapped_end:

utp_write_ro:
	mov eax, UT_RO
	mov rdx, [rax]			; reading is fine
	mov qword [rax], rdx
	ud2
utp_write_ro_end:

utp_exec_nx:
	mov eax, UT_DATA
	jmp rax
utp_exec_nx_end:

utp_hlt:
	hlt
utp_hlt_end:

utp_read_kernel:
	mov rax, KERNEL_ADDR
	mov rax, [rax]
	ud2
utp_read_kernel_end:

utp_divide:
	xor edx, edx
	mov eax, 1
	xor ecx, ecx
	div ecx
	ud2
utp_divide_end:

utp_int3:
	int3
	ud2
utp_int3_end:
