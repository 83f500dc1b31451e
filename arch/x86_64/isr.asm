; Interrupt and exception entry stubs for all 256 vectors. Each stub makes
; the stack look the same (a dummy error code where the CPU pushes none,
; then the vector), saves the general registers as struct trap_frame and
; calls trap_dispatch(frame). From ring 3 the GS base is the user's: swapgs
; on the way in and out, and leave through user_return_iret.

%include "arch/x86_64/frame.inc"

extern trap_dispatch, user_return_iret
global isr_stub_table

section .text
bits 64

; Vectors for which the CPU pushes an error code.
%define HAS_ERROR(v) ((v) == 8 || ((v) >= 10 && (v) <= 14) || (v) == 17 || (v) == 21 || (v) == 29 || (v) == 30)

%macro ISR_STUB 1
align 16
isr_stub_%1:
%if HAS_ERROR(%1) == 0
	push 0
%endif
	push %1
	jmp isr_common
%endmacro

%assign v 0
%rep 256
	ISR_STUB v
%assign v v + 1
%endrep

isr_common:
	PUSH_REGS
	cld
	CLAC				; an interrupted copy_*_user gets its AC back from iretq
	test byte [rsp + FRAME_CS], 3
	jnz .from_user
	mov rax, [rsp + FRAME_VECTOR]
	cmp rax, 2			; NMI
	je .paranoid
	cmp rax, 8			; double fault
	je .paranoid
	cmp rax, 18			; machine check
	je .paranoid
.dispatch:
	mov rdi, rsp
	call trap_dispatch
.restore:
	POP_REGS
	add rsp, 16			; vector and error code
	iretq

.from_user:
	swapgs
	xor ebp, ebp			; call traces end here, not in user memory
	mov rdi, rsp
	call trap_dispatch		; returns with interrupts off
	jmp user_return_iret

	; NMI, #DF and #MC can hit kernel code that runs on the user's GS base:
	; the first and last instructions of the syscall path. Ask the MSR
	; (kernel addresses are negative) and swap only if it is the user's.
.paranoid:
	mov ecx, MSR_GS_BASE
	rdmsr
	test edx, edx
	js .dispatch
	swapgs
	mov rdi, rsp
	call trap_dispatch
	swapgs
	jmp .restore

%macro ISR_ADDR 1
	dq isr_stub_%1
%endmacro

section .rodata
align 8
isr_stub_table:
%assign v 0
%rep 256
	ISR_ADDR v
%assign v v + 1
%endrep
