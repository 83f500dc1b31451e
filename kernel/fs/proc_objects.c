/*
 * /proc/fulcrum/objects: every count a teardown test needs, one
 * "name value" per line -- free pages (the heap's spare empty slabs, a
 * cache, counted as free), heap objects and pages in use, and the
 * live processes, threads, tasks, address spaces, files, pipes, sockets
 * and queued signal records. After N fork/exec/exit/wait cycles (once the
 * caches have warmed up) every line must read as it did before.
 */
#include "fs/file.h"
#include "fs/proc_objects.h"
#include "fs/procfs.h"
#include "fs/seqbuf.h"
#include "fs/tmpfs.h"
#include "mm/heap.h"
#include "mm/page_alloc.h"
#include "mm/vm.h"
#include "printk.h"
#include "proc/process.h"
#include "proc/signal.h"
#include "sched/task.h"

static void count_task(struct task *t, void *arg)
{
	(*(u64 *)arg)++;
}

static int show_objects(struct seqbuf *sb, void *arg)
{
	struct heap_stats heap;
	struct vm_counts vm;
	struct tmpfs_usage tmp;
	struct fs_counts fs;
	u64 tasks = 0;

	heap_get_stats(&heap);
	vm_counts(&vm);
	fs_object_counts(&fs);
	tmpfs_get_usage(&tmp);
	sched_for_each_task(count_task, &tasks);
	/* Free pages, counting the heap's spare empty slabs as free: a cache that can fill later. */
	seq_printf(sb, "free_pages %llu\n",
		   (unsigned long long)(page_alloc_free_pages() + heap.spare_pages));
	seq_printf(sb, "heap_objects %llu\n", (unsigned long long)heap.objects);
	seq_printf(sb, "heap_used_slab_pages %llu\n",
		   (unsigned long long)(heap.slab_pages - heap.spare_pages));
	seq_printf(sb, "heap_large_pages %llu\n", (unsigned long long)heap.large_pages);
	seq_printf(sb, "processes %u\n", process_count());
	seq_printf(sb, "threads %u\n", thread_count());
	seq_printf(sb, "tasks %llu\n", (unsigned long long)tasks);
	seq_printf(sb, "address_spaces %llu\n", (unsigned long long)vm.vms);
	seq_printf(sb, "vm_areas %llu\n", (unsigned long long)vm.areas);
	seq_printf(sb, "user_frames %llu\n", (unsigned long long)vm.frames);
	seq_printf(sb, "files %ld\n", fs.files);
	seq_printf(sb, "fd_tables %ld\n", fs.fdtables);
	seq_printf(sb, "pipes %ld\n", fs.pipes);
	seq_printf(sb, "sockets %ld\n", fs.sockets);
	seq_printf(sb, "signal_records %u\n", signal_extra_count());
	seq_printf(sb, "tmpfs_inodes %llu\n", (unsigned long long)tmp.inodes);
	seq_printf(sb, "tmpfs_pages %llu\n", (unsigned long long)tmp.pages);
	return 0;
}

void proc_objects_init(void)
{
	if (procfs_register("fulcrum/objects", show_objects, NULL, NULL))
		pr_warn("procfs: could not register fulcrum/objects\n");
}
