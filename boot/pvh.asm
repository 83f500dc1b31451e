; PVH entry: an ELF note that names a 32-bit entry point, which QEMU's
; -kernel (and other PVH loaders) use instead of a multiboot header. The
; loader starts there in 32-bit protected mode, paging off, EBX = physical
; address of the hvm_start_info (kernel/boot/pvh.c reads it); this joins
; _start with EAX = that structure's magic in place of multiboot2's.

PVH_START_MAGIC		equ 0x336ec578
XEN_ELFNOTE_PHYS32_ENTRY equ 18		; the note type PVH loaders look for

extern _start

section .note.Xen note alloc noexec nowrite align=4
	dd 4				; name size: "Xen" and its NUL
	dd 4				; descriptor size
	dd XEN_ELFNOTE_PHYS32_ENTRY
	db "Xen", 0
	dd pvh_start			; physical: .boot.text runs where it is loaded

section .boot.text progbits alloc exec nowrite align=16
bits 32
pvh_start:
	mov eax, PVH_START_MAGIC
	jmp _start
