; Multiboot2 header: tells GRUB this is a multiboot2 kernel, asks for
; page-aligned modules and for a linear framebuffer of any size and depth.
; GRUB sets one up under UEFI and, on QEMU's BIOS too (1280x800x32, even with
; grub.cfg's gfxpayload=text); the kernel draws on it, or on VGA text if none.

MB2_MAGIC	equ 0xe85250d6
MB2_ARCH_I386	equ 0

section .multiboot2 progbits alloc noexec nowrite align=8
mb2_header:
	dd MB2_MAGIC
	dd MB2_ARCH_I386
	dd mb2_header_end - mb2_header
	dd 0x100000000 - (MB2_MAGIC + MB2_ARCH_I386 + (mb2_header_end - mb2_header))

	; module alignment tag: modules start on page boundaries
	align 8
	dw 6, 0
	dd 8

	; framebuffer tag, optional (flags bit 0): width, height, depth 0 = no preference
	align 8
	dw 5, 1
	dd 20
	dd 0, 0, 0

	; end tag
	align 8
	dw 0, 0
	dd 8
mb2_header_end:
