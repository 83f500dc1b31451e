/*
 * The host shim fulcrum-topo links in place of arch/x86_64/ and the kernel
 * heap (topo_arch.c): where printk's text goes.
 */
#ifndef FULCRUM_TOOLS_TOPO_ARCH_H
#define FULCRUM_TOOLS_TOPO_ARCH_H

#include <stdio.h>

/* printk's console from now on (stdout until set); timestamps are dropped. */
void topo_console_to(FILE *out);

#endif
