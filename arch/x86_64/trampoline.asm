; AP start-up code. The boot CPU copies it to TRAMPOLINE_BASE (below 1 MiB,
; page aligned) and points the startup IPI there. An AP starts in real
; mode at TRAMPOLINE_BASE, goes through protected mode into long mode on
; the page tables in tr_cr3 (identity-mapped first 2 MiB + the kernel),
; then calls tr_entry(tr_arg) in the higher half on the stack tr_stack.
; The data fields at the end are filled in by smp.c for each AP.

TRAMPOLINE_BASE	equ 0x8000
%define ABS(x) (TRAMPOLINE_BASE + ((x) - trampoline_start))

global trampoline_start, trampoline_end
global tr_cr3, tr_efer, tr_stack, tr_entry, tr_arg

section .rodata
align 16
bits 16
trampoline_start:
	cli
	cld
	xor ax, ax
	mov ds, ax
	lgdt [ABS(tr_gdt_ptr)]
	mov eax, cr0
	or eax, 1			; PE
	mov cr0, eax
	jmp dword 0x08:ABS(tr_protected)

bits 32
tr_protected:
	mov ax, 0x10
	mov ds, ax
	mov es, ax
	mov ss, ax
	mov eax, cr4
	or eax, (1 << 5) | (1 << 7)	; PAE, PGE
	mov cr4, eax
	mov eax, [ABS(tr_cr3)]
	mov cr3, eax
	mov ecx, 0xc0000080		; EFER: LME, and NXE if the boot CPU uses it
	rdmsr
	or eax, [ABS(tr_efer)]
	wrmsr
	mov eax, cr0
	or eax, (1 << 31) | (1 << 16)	; PG, WP
	mov cr0, eax
	jmp 0x18:ABS(tr_long)

bits 64
tr_long:
	mov ax, 0x10
	mov ds, ax
	mov es, ax
	mov ss, ax
	mov rsp, [ABS(tr_stack)]
	mov rdi, [ABS(tr_arg)]
	mov rax, [ABS(tr_entry)]
	xor ebp, ebp
	call rax
.halt:
	cli
	hlt
	jmp .halt

align 8
tr_gdt:
	dq 0
	dq 0x00cf9a000000ffff		; 0x08: 32-bit code
	dq 0x00cf92000000ffff		; 0x10: data
	dq 0x00af9a000000ffff		; 0x18: 64-bit code
tr_gdt_ptr:
	dw tr_gdt_ptr - tr_gdt - 1
	dd ABS(tr_gdt)
align 8
tr_cr3:		dq 0
tr_efer:	dq 0
tr_stack:	dq 0
tr_entry:	dq 0
tr_arg:		dq 0
trampoline_end:
