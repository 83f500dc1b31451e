/* The portable kernel's entry, called once by the arch code on the boot CPU. */
#ifndef FULCRUM_MAIN_H
#define FULCRUM_MAIN_H

#include "boot/boot_info.h"
#include "lib/compiler.h"

#define FULCRUM_VERSION "0.1"

__noreturn void kernel_main(struct boot_info *bi);

#endif
