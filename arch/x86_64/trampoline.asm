; AP start-up code. The boot CPU copies it to TRAMPOLINE_BASE (below 1 MiB,
; page aligned) and points the startup IPI there. An AP starts in real
; mode at TRAMPOLINE_BASE and first claims its slot in tr_slots: it reads
; its own APIC ID from CPUID, finds the slot the boot CPU filled in for
; that ID and moves the slot from OPEN to CLAIMED with one locked
; compare-and-exchange. An AP without an open slot (one that starts after
; the boot CPU gave up on it, or that nobody asked for) parks in real mode
; for good: interrupts off, halted, an NMI only bringing it back to the
; halt, and it never reads another CPU's data. A claimed AP goes through
; protected mode into long mode on the page tables in tr_cr3
; (identity-mapped first 2 MiB + the kernel), fetches its own stack and
; argument from the kernel's table at tr_boot (16 bytes per slot), moves
; its slot from CLAIMED to STARTED (parking in long mode if the boot CPU
; closed it meanwhile) and calls tr_entry(arg) in the higher half.
; Slot states and layout must match smp.c.

TRAMPOLINE_BASE	equ 0x8000
SLOT_OPEN	equ 1
SLOT_CLAIMED	equ 2
SLOT_STARTED	equ 3
MAX_SLOTS	equ 256			; MAX_CPUS
%define ABS(x) (TRAMPOLINE_BASE + ((x) - trampoline_start))

global trampoline_start, trampoline_end
global tr_cr3, tr_efer, tr_boot, tr_entry, tr_nr_slots, tr_slots

section .rodata
align 16
bits 16
trampoline_start:
	cli
	cld
	xor ax, ax
	mov ds, ax
	mov ss, ax
	; The APIC ID: CPUID leaf 0xb's full x2APIC ID if the leaf is there, else leaf 1's 8 bits.
	xor eax, eax
	cpuid
	cmp eax, 0xb
	jb .legacy_id
	mov eax, 0xb
	xor ecx, ecx
	cpuid
	test bx, bx
	jz .legacy_id
	mov esi, edx
	jmp .find_slot
.legacy_id:
	mov eax, 1
	cpuid
	shr ebx, 24
	mov esi, ebx
.find_slot:
	mov ecx, [ABS(tr_nr_slots)]
	cmp ecx, MAX_SLOTS
	ja tr_park
	mov bx, ABS(tr_slots)
	xor edi, edi
.next_slot:
	cmp edi, ecx
	jae tr_park
	cmp [bx], esi
	je .claim
	add bx, 8
	inc edi
	jmp .next_slot
.claim:
	mov eax, SLOT_OPEN
	mov edx, SLOT_CLAIMED
	lock cmpxchg [bx + 4], edx
	jne tr_park
	lgdt [ABS(tr_gdt_ptr)]
	mov eax, cr0
	or eax, 1			; PE
	mov cr0, eax
	jmp dword 0x08:ABS(tr_protected)

; Parked for good, in real mode: an NMI (the only interrupt that gets
; through) enters here again through tr_ivt, on the shared park stack.
tr_park:
	xor ax, ax
	mov ds, ax
	mov ss, ax
	mov sp, ABS(tr_park_stack_top)
	lidt [ABS(tr_ivt_ptr)]
.halt:
	cli
	hlt
	jmp .halt

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
	lidt [ABS(tr_idt_ptr)]		; until the kernel's: an NMI parks
	mov rsp, ABS(tr_park_stack_top)
	mov edi, edi			; the slot index; the upper half is undefined after the mode switch
	mov eax, SLOT_CLAIMED
	mov edx, SLOT_STARTED
	lock cmpxchg [ABS(tr_slots) + rdi * 8 + 4], edx
	jne tr_park64			; the boot CPU gave up on us between the claim and now
	shl rdi, 4
	add rdi, [ABS(tr_boot)]
	mov rsp, [rdi]
	mov rdi, [rdi + 8]
	mov rax, [ABS(tr_entry)]
	xor ebp, ebp
	call rax
tr_park64:
	cli
	hlt
	jmp tr_park64

align 8
tr_gdt:
	dq 0
	dq 0x00cf9a000000ffff		; 0x08: 32-bit code
	dq 0x00cf92000000ffff		; 0x10: data
	dq 0x00af9a000000ffff		; 0x18: 64-bit code
tr_gdt_ptr:
	dw tr_gdt_ptr - tr_gdt - 1
	dd ABS(tr_gdt)
; Real-mode vectors 0-2 for a parked AP: only the NMI's is meant to be taken.
tr_ivt:
	dw ABS(tr_park), 0
	dw ABS(tr_park), 0
	dw ABS(tr_park), 0
tr_ivt_ptr:
	dw tr_ivt_ptr - tr_ivt - 1
	dd ABS(tr_ivt)
align 8
; Long-mode gates 0-2, all to tr_park64 (interrupt gates, 64-bit code selector 0x18).
tr_idt:
%rep 3
	dw ABS(tr_park64) & 0xffff, 0x18
	db 0, 0x8e
	dw ABS(tr_park64) >> 16
	dd 0, 0
%endrep
tr_idt_ptr:
	dw tr_idt_ptr - tr_idt - 1
	dq ABS(tr_idt)
align 8
tr_park_stack:
	times 64 db 0			; shared by parked APs: written by NMIs, never read
tr_park_stack_top:
tr_cr3:		dq 0
tr_efer:	dq 0
tr_boot:	dq 0			; kernel address of struct ap_boot[MAX_SLOTS]
tr_entry:	dq 0
tr_nr_slots:	dd 0, 0
tr_slots:	times MAX_SLOTS dq 0	; per CPU: u32 APIC ID, u32 state
trampoline_end:
