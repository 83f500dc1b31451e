/*
 * The files procfs always has: /proc/uptime and /proc/meminfo, in Linux's
 * formats so the usual tools can parse them.
 */
#include <arch/time.h>

#include "fs/procfs.h"
#include "fs/seqbuf.h"
#include "mm/page_alloc.h"
#include "printk.h"

#define PAGE_KB 4

/*
 * "<seconds up> <seconds idle>", two decimals. The scheduler does not keep
 * per-CPU idle time yet, so the second figure is 0.00.
 */
static int show_uptime(struct seqbuf *sb, void *arg)
{
	u64 cs = arch_clock_ns() / 10000000; /* centiseconds */

	return seq_printf(sb, "%llu.%02llu 0.00\n", (unsigned long long)(cs / 100),
			  (unsigned long long)(cs % 100));
}

/* MemFree and MemAvailable are the page allocator's free pages: nothing is cached or reclaimable.
 */
static int show_meminfo(struct seqbuf *sb, void *arg)
{
	unsigned long long total = page_alloc_total_pages() * PAGE_KB;
	unsigned long long free = page_alloc_free_pages() * PAGE_KB;

	return seq_printf(sb,
			  "MemTotal:       %8llu kB\n"
			  "MemFree:        %8llu kB\n"
			  "MemAvailable:   %8llu kB\n",
			  total, free, free);
}

void procfs_init(void)
{
	if (procfs_register("uptime", show_uptime, NULL, NULL) ||
	    procfs_register("meminfo", show_meminfo, NULL, NULL))
		pr_warn("procfs: could not register the built-in files\n");
}
