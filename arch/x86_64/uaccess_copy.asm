; The instructions that touch user memory, each listed in the exception
; table with the place to resume if it faults (uaccess.c looks the
; faulting RIP up there). Callers have checked the range with access_ok.

%include "arch/x86_64/frame.inc"

%define EFAULT 14

global uaccess_copy, uaccess_strncpy, uaccess_read_nostac
global uaccess_extable, uaccess_extable_end

section .text
bits 64

; u64 uaccess_copy(void *dst, const void *src, u64 n): bytes NOT copied
; (0 on success). rep movsb keeps rcx, rsi and rdi current when it
; faults, so the fix-up knows how far it got.
uaccess_copy:
	STAC
	mov rcx, rdx
.copy:
	rep movsb
	CLAC
	xor eax, eax
	ret
.fault:
	CLAC
	mov rax, rcx
	ret

; s64 uaccess_strncpy(char *dst, const char *src, u64 n): the length of
; the string if a NUL is among the first n bytes (copied with it), n if
; not (n bytes copied), -EFAULT on a fault.
uaccess_strncpy:
	STAC
	xor eax, eax
.next:
	cmp rax, rdx
	je .done
.load:
	mov cl, [rsi + rax]
	mov [rdi + rax], cl
	test cl, cl
	jz .done
	inc rax
	jmp .next
.done:
	CLAC
	ret
.fault:
	CLAC
	mov rax, -EFAULT
	ret

; s64 uaccess_read_nostac(const u64 *src): reads a user word WITHOUT stac,
; for the self-test that SMAP is enforced: -EFAULT when it is (or when src
; is unmapped), else the word.
uaccess_read_nostac:
.load:
	mov rax, [rdi]
	ret
.fault:
	mov rax, -EFAULT
	ret

section .rodata
align 8
; {faulting instruction, resume at} pairs.
uaccess_extable:
	dq uaccess_copy.copy, uaccess_copy.fault
	dq uaccess_strncpy.load, uaccess_strncpy.fault
	dq uaccess_read_nostac.load, uaccess_read_nostac.fault
uaccess_extable_end:
