; Kernel entry from GRUB: 32-bit protected mode, paging off, EAX = multiboot2
; magic, EBX = physical address of the boot information. Zeroes .bss, builds
; early page tables (identity and direct map of the first 4 GiB, the kernel
; at -2 GiB), enters long mode and jumps to arch_start() in the higher half.

KERNEL_VMA	equ 0xffffffff80000000
DIRECT_MAP_PML4	equ 256			; 0xffff800000000000
KERNEL_PML4	equ 511
KERNEL_PDPT	equ 510			; 0xffffffff80000000

PTE_P		equ 1 << 0
PTE_W		equ 1 << 1
PTE_PS		equ 1 << 7

extern __bss_start, __bss_end
extern arch_start
global _start, boot_stack_top, boot_stack_bottom, boot_stack_guard
global boot_tsc, boot_magic, boot_mbi, early_pml4

%define PHYS(x) ((x) - KERNEL_VMA)

section .boot.text progbits alloc exec nowrite align=16
bits 32
_start:
	cli
	cld
	mov esi, eax			; multiboot2 magic
	mov ebp, ebx			; boot information
	rdtsc				; boot time starts here: EDX:EAX
	mov ebx, eax

	mov edi, PHYS(__bss_start)
	mov ecx, PHYS(__bss_end)
	sub ecx, edi
	shr ecx, 2
	xor eax, eax
	rep stosd

	mov [PHYS(boot_tsc)], ebx
	mov [PHYS(boot_tsc) + 4], edx
	mov [PHYS(boot_magic)], esi
	mov [PHYS(boot_mbi)], ebp
	mov esp, PHYS(boot_stack_top)

	; Long mode needs CPUID 0x80000001 EDX bit 29.
	mov eax, 0x80000000
	cpuid
	cmp eax, 0x80000001
	jb no_long_mode
	mov eax, 0x80000001
	cpuid
	test edx, 1 << 29
	jz no_long_mode
	mov edi, edx			; remember NX support (bit 20)

	; PD0..PD3: 2048 2-MiB pages covering the first 4 GiB.
	mov eax, PTE_P | PTE_W | PTE_PS
	xor edx, edx
	mov ecx, 0
.fill_pd:
	mov [PHYS(early_pd) + ecx * 8], eax
	mov [PHYS(early_pd) + ecx * 8 + 4], edx
	add eax, 0x200000
	adc edx, 0
	inc ecx
	cmp ecx, 2048
	jne .fill_pd

	; PDPT low: four entries -> PD0..PD3; PDPT high[510] -> PD0 (first GiB).
	mov eax, PHYS(early_pd) + (PTE_P | PTE_W)
	mov ecx, 0
.fill_pdpt:
	mov [PHYS(early_pdpt_low) + ecx * 8], eax
	add eax, 4096
	inc ecx
	cmp ecx, 4
	jne .fill_pdpt
	mov dword [PHYS(early_pdpt_high) + KERNEL_PDPT * 8], PHYS(early_pd) + (PTE_P | PTE_W)

	mov eax, PHYS(early_pdpt_low) + (PTE_P | PTE_W)
	mov [PHYS(early_pml4)], eax
	mov [PHYS(early_pml4) + DIRECT_MAP_PML4 * 8], eax
	mov dword [PHYS(early_pml4) + KERNEL_PML4 * 8], PHYS(early_pdpt_high) + (PTE_P | PTE_W)

	mov eax, PHYS(early_pml4)
	mov cr3, eax
	mov eax, cr4
	or eax, 1 << 5			; PAE
	mov cr4, eax

	mov ecx, 0xc0000080		; EFER
	rdmsr
	or eax, 1 << 8			; LME
	test edi, 1 << 20
	jz .no_nx
	or eax, 1 << 11			; NXE
.no_nx:
	wrmsr

	mov eax, cr0
	or eax, (1 << 31) | (1 << 16)	; PG, WP
	mov cr0, eax

	lgdt [early_gdt_ptr]
	jmp 0x08:long_mode_low

no_long_mode:
	; Say so on the VGA text screen and on COM1, then stop.
	mov esi, no_lm_msg
	mov edi, 0xb8000
.next:
	lodsb
	test al, al
	jz .halt
	mov ah, 0x4f
	stosw
	mov dx, 0x3f8
	out dx, al
	jmp .next
.halt:
	hlt
	jmp .halt

bits 64
long_mode_low:
	mov ax, 0x10
	mov ds, ax
	mov es, ax
	mov ss, ax
	xor eax, eax
	mov fs, ax
	mov gs, ax
	mov rax, long_mode_high
	jmp rax

section .boot.data progbits alloc noexec write align=16
early_gdt:
	dq 0
	dq 0x00af9a000000ffff		; 0x08: 64-bit code
	dq 0x00cf92000000ffff		; 0x10: data
early_gdt_ptr:
	dw early_gdt_ptr - early_gdt - 1
	dq early_gdt
no_lm_msg:
	db "Fulcrum needs a 64-bit (long mode) CPU.", 0

section .text
bits 64
long_mode_high:
	mov rsp, boot_stack_top
	xor ebp, ebp			; ends call traces here
	call arch_start			; does not return; if it did, stop here
	cli
	hlt
	jmp $ - 2

section .bss nobits alloc noexec write align=4096
early_pml4:	resb 4096
early_pdpt_low:	resb 4096
early_pdpt_high: resb 4096
early_pd:	resb 4 * 4096
boot_stack_guard: resb 4096		; unmapped by paging: an overflow faults
boot_stack_bottom: resb 16384
boot_stack_top:
boot_tsc:	resq 1
boot_magic:	resd 1
boot_mbi:	resd 1
