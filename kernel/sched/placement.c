/*
 * The placement registry: the variants and select_idle_sibling flavours
 * that files register with SCHED_PLACEMENT_REGISTER and
 * SCHED_IDLE_SIBLING_REGISTER (select.h), found by name when
 * sched_select= / sched_idle_sibling= or the sysctl is set, so that a
 * placement only follows a pointer.
 */
#include "sched/select.h"

#include "cmdline.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "printk.h"

/*
 * The linker gathers the registrations into these sections and provides
 * their bounds (weak: an image with no variant at all still links).
 */
extern const struct sched_placement *const __start_sched_placements[] __attribute__((weak));
extern const struct sched_placement *const __stop_sched_placements[] __attribute__((weak));
extern const struct sched_idle_sibling *const __start_sched_idle_siblings[] __attribute__((weak));
extern const struct sched_idle_sibling *const __stop_sched_idle_siblings[] __attribute__((weak));

const struct sched_placement *sched_placement_cur = &stock_placement;
const struct sched_idle_sibling *sched_idle_sibling_cur = &idle_sibling_3_8_13;
const char *sched_select = "stock";
const char *sched_idle_sibling = "3.8.13";

static bool name_is(const char *name, const char *s, size_t len)
{
	return name && strlen(name) == len && memcmp(name, s, len) == 0;
}

static u32 nr_placements(void)
{
	if (!__start_sched_placements || !__stop_sched_placements)
		return 0;
	return (u32)(__stop_sched_placements - __start_sched_placements);
}

/* Counts only variants with their required operation: the others are not offered. */
const struct sched_placement *sched_placement_at(u32 i)
{
	for (u32 k = 0; k < nr_placements(); k++) {
		const struct sched_placement *v = __start_sched_placements[k];

		if (v->select_task_rq && i-- == 0)
			return v;
	}
	return NULL;
}

const struct sched_placement *sched_placement_find(const char *name, size_t len)
{
	const struct sched_placement *v;

	for (u32 i = 0; (v = sched_placement_at(i)); i++)
		if (name_is(v->name, name, len))
			return v;
	return NULL;
}

const struct sched_idle_sibling *sched_idle_sibling_find(const char *name, size_t len)
{
	const struct sched_idle_sibling *const *f = __start_sched_idle_siblings;

	for (; f && f < __stop_sched_idle_siblings; f++)
		if ((*f)->select && name_is((*f)->name, name, len))
			return *f;
	return NULL;
}

int sched_select_set(const char *name, size_t len)
{
	const struct sched_placement *v = sched_placement_find(name, len);

	if (!v)
		return -EINVAL;
	WRITE_ONCE(sched_placement_cur, v);
	WRITE_ONCE(sched_select, v->name);
	return 0;
}

int sched_idle_sibling_set(const char *name, size_t len)
{
	const struct sched_idle_sibling *f = sched_idle_sibling_find(name, len);

	if (!f)
		return -EINVAL;
	WRITE_ONCE(sched_idle_sibling_cur, f);
	WRITE_ONCE(sched_idle_sibling, f->name);
	return 0;
}

/* Appends s to buf[*len..size), after ", " unless first; keeps buf NUL-terminated. */
static void add_name(char *buf, size_t size, size_t *len, const char *s)
{
	const char *sep = *len ? ", " : "";

	while (*sep && *len + 1 < size)
		buf[(*len)++] = *sep++;
	while (*s && *len + 1 < size)
		buf[(*len)++] = *s++;
	buf[*len] = '\0';
}

void sched_placement_names(char *buf, size_t size)
{
	const struct sched_placement *v;
	size_t len = 0;

	buf[0] = '\0';
	for (u32 i = 0; (v = sched_placement_at(i)); i++)
		add_name(buf, size, &len, v->name);
}

static void idle_sibling_names(char *buf, size_t size)
{
	const struct sched_idle_sibling *const *f = __start_sched_idle_siblings;
	size_t len = 0;

	buf[0] = '\0';
	for (; f && f < __stop_sched_idle_siblings; f++)
		if ((*f)->select)
			add_name(buf, size, &len, (*f)->name);
}

void sched_placement_print(void)
{
	const struct sched_placement *v;

	pr_info("placement variants:");
	for (u32 i = 0; (v = sched_placement_at(i)); i++)
		pr_cont(" %s", v->name);
	pr_cont("; chosen: %s, select_idle_sibling %s\n", sched_select, sched_idle_sibling);
}

/* -------------------------------------------------------------- boot options */

static int set_select_option(const char *value, size_t len)
{
	char names[128];

	if (sched_select_set(value, len) == 0)
		return 0;
	sched_placement_names(names, sizeof(names));
	pr_warn("cmdline: bad value '%s' for 'sched_select' (registered: %s), keeping '%s'\n",
		value, names, sched_select);
	return 1;
}

static int set_idle_sibling_option(const char *value, size_t len)
{
	char names[128];

	if (sched_idle_sibling_set(value, len) == 0)
		return 0;
	idle_sibling_names(names, sizeof(names));
	pr_warn("cmdline: bad value '%s' for 'sched_idle_sibling' (registered: %s), keeping '%s'\n",
		value, names, sched_idle_sibling);
	return 1;
}

BOOT_OPTION_STRING_FN(sched_select, "sched_select", &sched_select, set_select_option,
		      "task placement, a registered variant: stock (Linux 3.8's domain walk), "
		      "sbm (Wang's balance map, v3)");
BOOT_OPTION_STRING_FN(sched_idle_sibling, "sched_idle_sibling", &sched_idle_sibling,
		      set_idle_sibling_option,
		      "select_idle_sibling flavour: 3.8.13 (bouncing-cow fix) or 3.8.0");
