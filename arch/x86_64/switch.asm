; context_switch_stacks(&prev->rsp, next->rsp), called by arch_context_switch:
; saves the callee-saved registers on the current stack, stores RSP in
; prev->rsp, loads next's RSP and pops next's registers. A new context
; starts in context_start, which moves the entry function and its argument
; (left in r12/r13 by arch_context_init) into place and calls it.

global context_switch_stacks, context_start

section .text
bits 64
context_switch_stacks:
	push rbp
	push rbx
	push r12
	push r13
	push r14
	push r15
	mov [rdi], rsp
	mov rsp, rsi
	pop r15
	pop r14
	pop r13
	pop r12
	pop rbx
	pop rbp
	ret

context_start:
	mov rdi, r13			; arg
	xor ebp, ebp			; ends call traces here
	call r12			; entry(arg); never returns
	ud2
