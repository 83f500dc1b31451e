; Interrupt and exception entry stubs for all 256 vectors. Each stub makes
; the stack look the same (a dummy error code where the CPU pushes none,
; then the vector), saves the general registers as struct trap_frame and
; calls trap_dispatch(frame).

extern trap_dispatch
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
	push rax
	push rbx
	push rcx
	push rdx
	push rsi
	push rdi
	push rbp
	push r8
	push r9
	push r10
	push r11
	push r12
	push r13
	push r14
	push r15
	cld
	mov rdi, rsp
	call trap_dispatch
	pop r15
	pop r14
	pop r13
	pop r12
	pop r11
	pop r10
	pop r9
	pop r8
	pop rbp
	pop rdi
	pop rsi
	pop rdx
	pop rcx
	pop rbx
	pop rax
	add rsp, 16			; vector and error code
	iretq

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
