/*
 * sched_model=linux-3.8|linux-6.12: the generations Fulcrum's scheduler can
 * be, each a row of settings that the single options would otherwise give
 * one by one:
 *
 *   model        sched_fair  sched_balance   sched_select  sched_idle_sibling  busy_factor
 *   linux-3.8    cfs         3.8 (cpu_load)  stock         3.8.13              0 (3.8's 64/32)
 *   linux-6.12   eevdf       modern (PELT)   stock         6.12 (SIS_UTIL)     16
 *
 * The single options stay: one given on the command line beside the model
 * wins, before or after it. The model's setter runs when its word is
 * parsed, so it looks at the whole line (cmdline_names_option) and leaves
 * alone every option the line names; a later word then sets its own.
 */
#include "sched/model.h"

#include "cmdline.h"
#include "lib/printf.h"
#include "lib/string.h"
#include "printk.h"
#include "sched/balance_modern.h"
#include "sched/fair_internal.h"
#include "sched/pelt.h"
#include "sched/select.h"
#include "sched/topology.h"

struct sched_model_spec {
	const char *name;
	const char *fair;	  /* sched_fair= */
	const char *balance;	  /* sched_balance= */
	const char *select;	  /* sched_select= */
	const char *idle_sibling; /* sched_idle_sibling= */
	u32 busy_factor;	  /* sched_busy_factor= (0: each level's own) */
};

static const struct sched_model_spec models[] = {
	{ "linux-3.8", "cfs", "3.8", "stock", "3.8.13", 0 },
	/* Linux 5.10 and later give every level a busy_factor of 16. */
	{ "linux-6.12", "eevdf", "modern", "stock", "6.12", 16 },
};

const char *sched_model = "linux-3.8";

static const struct sched_model_spec *find_model(const char *name, size_t len)
{
	for (size_t i = 0; i < ARRAY_SIZE(models); i++)
		if (strlen(models[i].name) == len && memcmp(models[i].name, name, len) == 0)
			return &models[i];
	return NULL;
}

static const struct sched_model_spec *current_model(void)
{
	return find_model(sched_model, strlen(sched_model));
}

static const char *balance_now(void)
{
	return sched_balance_modern ? "modern" : "3.8";
}

/* Applies spec's settings, each unless the command line sets that option itself. */
static void apply_model(const struct sched_model_spec *spec)
{
	if (!cmdline_names_option("sched_fair"))
		sched_fair_mode = spec->fair;
	if (!cmdline_names_option("sched_balance"))
		sched_balance_set(spec->balance, strlen(spec->balance));
	if (!cmdline_names_option("sched_select"))
		sched_select_set(spec->select, strlen(spec->select));
	if (!cmdline_names_option("sched_idle_sibling"))
		sched_idle_sibling_set(spec->idle_sibling, strlen(spec->idle_sibling));
	if (!cmdline_names_option("sched_busy_factor"))
		sched_busy_factor_set(spec->busy_factor);
}

static int set_model_option(const char *value, size_t len)
{
	const struct sched_model_spec *spec = find_model(value, len);

	if (!spec) {
		pr_warn("cmdline: bad value '%s' for 'sched_model' (linux-3.8 or linux-6.12), "
			"keeping '%s'\n",
			value, sched_model);
		return 1;
	}
	sched_model = spec->name;
	apply_model(spec);
	return 0;
}
BOOT_OPTION_STRING_FN(sched_model, "sched_model", &sched_model, set_model_option,
		      "the scheduler of a Linux generation at once: linux-3.8 (CFS, 3.8 balancer, "
		      "default) or linux-6.12 (EEVDF, PELT, modern balancer, SIS_UTIL)");

void sched_model_describe(char *buf, size_t size)
{
	ksnprintf(buf, size, "fair=%s balance=%s pelt=%s select=%s idle_sibling=%s busy_factor=%u",
		  sched_fair_mode, balance_now(), sched_pelt_enabled ? "on" : "off", sched_select,
		  sched_idle_sibling, sched_busy_factor_get());
}

/* If value differs from the model's, appends "name=value" to buf[*len..size) and returns 1. */
static int add_override(char *buf, size_t size, size_t *len, const char *name, const char *value,
			const char *model_value)
{
	int n;

	if (strcmp(value, model_value) == 0)
		return 0;
	if (*len + 1 < size) {
		n = ksnprintf(buf + *len, size - *len, "%s%s=%s", *len ? " " : "", name, value);
		if (n > 0)
			*len = MIN(*len + (size_t)n, size - 1);
	}
	return 1;
}

int sched_model_overrides(char *buf, size_t size)
{
	const struct sched_model_spec *spec = current_model();
	char factor[16], model_factor[16];
	size_t len = 0;
	int n = 0;

	buf[0] = '\0';
	if (!spec)
		return 0;
	ksnprintf(factor, sizeof(factor), "%u", sched_busy_factor_get());
	ksnprintf(model_factor, sizeof(model_factor), "%u", spec->busy_factor);
	n += add_override(buf, size, &len, "sched_fair", sched_fair_mode, spec->fair);
	n += add_override(buf, size, &len, "sched_balance", balance_now(), spec->balance);
	n += add_override(buf, size, &len, "sched_select", sched_select, spec->select);
	n += add_override(buf, size, &len, "sched_idle_sibling", sched_idle_sibling,
			  spec->idle_sibling);
	n += add_override(buf, size, &len, "sched_busy_factor", factor, model_factor);
	return n;
}

void sched_model_print(void)
{
	char what[160], over[160];

	sched_model_describe(what, sizeof(what));
	if (sched_model_overrides(over, sizeof(over)))
		pr_info("sched_model: %s: %s (overriding the model: %s)\n", sched_model, what, over);
	else
		pr_info("sched_model: %s: %s\n", sched_model, what);
}
