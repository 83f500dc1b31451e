/*
 * The scheduler's files in /proc, named as Linux names them where Linux
 * has them, so the shell's built-ins (and the same binaries on Linux)
 * read them alike:
 *
 *   /proc/schedstat                  version 15, plus Fulcrum's wasted and migrations cpuN lines
 *   /proc/sys/kernel/sched_*_ns      the CFS knobs (Linux 3.8's sysctls), writable
 *   /proc/sys/kernel/sched_features  NAME / NO_NAME list, writable like Linux's debugfs file
 *   /proc/sys/kernel/sched_select    a registered placement variant (stock, sbm), writable
 *   /proc/sys/kernel/sched_model     the sched_model= chosen at boot (linux-3.8, linux-6.12)
 *   /proc/fulcrum/sched_model        that model, what runs, and what differs from the model
 *   /proc/fulcrum/tasks              per-task statistics
 *   /proc/fulcrum/topology           CPUs and their scheduling domains
 */
#include <arch/cpu.h>
#include <arch/smp.h>

#include "fs/procfs.h"
#include "fs/proc_sched.h"
#include "fs/seqbuf.h"
#include "lib/errno.h"
#include "lib/kstrto.h"
#include "lib/printf.h"
#include "lib/string.h"
#include "machine_boot.h"
#include "printk.h"
#include "sched/features.h"
#include "sched/model.h"
#include "sched/select.h"
#include "sched/stats.h"
#include "sched/topology.h"

static void seq_line(void *ctx, const char *text)
{
	seq_printf(ctx, "%s\n", text);
}

static int show_schedstat(struct seqbuf *sb, void *arg)
{
	struct sched_out out = { seq_line, sb };

	schedstat_show(&out);
	return 0;
}

static int show_tasks(struct seqbuf *sb, void *arg)
{
	struct sched_out out = { seq_line, sb };

	sched_tasks_show(&out);
	return 0;
}

static int show_topology(struct seqbuf *sb, void *arg)
{
	const struct machine *m = machine_current();
	struct sched_topology *t;
	unsigned long flags;
	u32 me;

	seq_printf(sb, "%u CPUs, %u nodes, sched_select=%s\n", sched_nr_cpus(), m->nr_nodes,
		   sched_select);
	seq_printf(sb, "%4s %7s %7s %4s %6s %3s %4s  %s\n", "cpu", "apic_id", "package", "core",
		   "thread", "llc", "node", "domains (level:span)");
	flags = arch_irq_save(); /* a topology read section stays on one CPU */
	me = arch_cpu_id();
	t = sched_topology_read_begin(me);
	for (u32 cpu = 0; cpu < sched_nr_cpus(); cpu++) {
		const struct machine_cpu *c = &m->cpu[cpu];
		struct sched_domain *sd;

		seq_printf(sb, "%4u %7u %7u %4u %6u %3u %4u ", cpu, c->apic_id, c->package, c->core,
			   c->thread, c->llc, c->node);
		for_each_domain (t, cpu, sd) {
			char span[128];

			cpumask_print(span, sizeof(span), sd_span(sd));
			seq_printf(sb, " %s:%s", sd->name, span);
		}
		seq_printf(sb, "\n");
	}
	sched_topology_read_end(me);
	arch_irq_restore(flags);
	return 0;
}

static int show_tunable(struct seqbuf *sb, void *arg)
{
	u64 value;
	int err = sched_tunable_get(arg, &value);

	if (!err)
		seq_printf(sb, "%llu\n", (unsigned long long)value);
	return err;
}

/* The written text without trailing blanks and newlines; -EINVAL if empty or too long. */
static int written_word(const char *buf, size_t n, char *word, size_t size)
{
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' ' || buf[n - 1] == '\t'))
		n--;
	while (n && (*buf == ' ' || *buf == '\t')) {
		buf++;
		n--;
	}
	if (!n || n >= size)
		return -EINVAL;
	memcpy(word, buf, n);
	word[n] = '\0';
	return 0;
}

static int store_tunable(const char *buf, size_t n, void *arg)
{
	char word[32];
	u64 value;
	int err = written_word(buf, n, word, sizeof(word));

	if (!err)
		err = kstrtou64(word, strlen(word), false, &value);
	return err ? -EINVAL : sched_tunable_set(arg, value, sched_nr_cpus());
}

static int show_features(struct seqbuf *sb, void *arg)
{
	char buf[512];

	sched_feat_describe(buf, sizeof(buf));
	seq_printf(sb, "%s\n", buf);
	return 0;
}

/* One or more NAME / NO_NAME, blank- or comma-separated; all checked before any is set. */
static int store_features(const char *buf, size_t n, void *arg)
{
	char text[512], *p;
	u64 saved = sched_features_mask;
	int err = written_word(buf, n, text, sizeof(text));

	if (err)
		return err;
	for (p = text; *p;) {
		size_t len = 0;

		while (p[len] && p[len] != ' ' && p[len] != ',' && p[len] != '\t' && p[len] != '\n')
			len++;

		if (len && sched_feat_set(p, len)) {
			sched_features_mask = saved;
			return -EINVAL;
		}
		p += len;
		while (*p == ' ' || *p == ',' || *p == '\t' || *p == '\n')
			p++;
	}
	return 0;
}

static int show_select(struct seqbuf *sb, void *arg)
{
	seq_printf(sb, "%s\n", sched_select);
	return 0;
}

static int store_select(const char *buf, size_t n, void *arg)
{
	char word[SCHED_PLACEMENT_NAME_MAX + 1];

	if (written_word(buf, n, word, sizeof(word)))
		return -EINVAL;
	return sched_select_set(word, strlen(word));
}

static int show_model_name(struct seqbuf *sb, void *arg)
{
	seq_printf(sb, "%s\n", sched_model);
	return 0;
}

/* "model linux-6.12", "runs fair=eevdf ...", "overrides sched_fair=cfs" (or "none"). */
static int show_model(struct seqbuf *sb, void *arg)
{
	char buf[160];

	seq_printf(sb, "model %s\n", sched_model);
	sched_model_describe(buf, sizeof(buf));
	seq_printf(sb, "runs %s\n", buf);
	if (!sched_model_overrides(buf, sizeof(buf)))
		ksnprintf(buf, sizeof(buf), "none");
	seq_printf(sb, "overrides %s\n", buf);
	return 0;
}

void proc_sched_init(void)
{
	static char paths[8][PROCFS_PATH_MAX];
	const char *name;
	int err = 0;

	err |= procfs_register("schedstat", show_schedstat, NULL, NULL);
	err |= procfs_register("fulcrum/tasks", show_tasks, NULL, NULL);
	err |= procfs_register("fulcrum/topology", show_topology, NULL, NULL);
	err |= procfs_register("sys/kernel/sched_features", show_features, store_features, NULL);
	err |= procfs_register("sys/kernel/sched_select", show_select, store_select, NULL);
	err |= procfs_register("sys/kernel/sched_model", show_model_name, NULL, NULL);
	err |= procfs_register("fulcrum/sched_model", show_model, NULL, NULL);
	for (u32 i = 0; (name = sched_tunable_name(i)) && i < 8; i++) {
		ksnprintf(paths[i], sizeof(paths[i]), "sys/kernel/%s", name);
		err |= procfs_register(paths[i], show_tunable, store_tunable, (void *)name);
	}
	if (err)
		pr_warn("procfs: some scheduler files could not be registered\n");
}
