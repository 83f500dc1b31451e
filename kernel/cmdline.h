/*
 * The kernel command line: a registry of typed boot options, each declared
 * once beside the code it configures, and the parser that sets them.
 */
#ifndef FULCRUM_CMDLINE_H
#define FULCRUM_CMDLINE_H

#include "lib/compiler.h"
#include "lib/types.h"

enum option_type {
	OPT_BOOL,   /* "name" or "name=1|0|on|off|yes|no|y|n|true|false" (any case) -> bool */
	OPT_INT,    /* "name=N" within [min, max] -> s64; K/M/G suffixes if .suffix */
	OPT_STRING, /* "name=text" -> const char * (into the parser's copy); if
		     * .choices is set, the text must be one of them */
	OPT_LIST,   /* "name=a,b,c" -> each item passed to .set_item in order;
		     * see cmdline_parse_options() for what a refusal undoes */
};

struct boot_option {
	const char *name;
	enum option_type type;
	void *var; /* bool *, s64 *, const char ** ; unused for OPT_LIST */
	s64 min, max;
	bool suffix;
	const char *const *choices; /* NULL-terminated, OPT_STRING only */
	/*
	 * OPT_LIST: applies one item (item[0..len), also NUL-terminated);
	 * returns 0 to accept it, nonzero to refuse it.
	 * OPT_STRING (BOOT_OPTION_STRING_FN): the option's own setter, for
	 * choices not known when the option is declared (a registry's
	 * names). It gets the whole value instead of .choices and either
	 * applies it, pointing *var at text that stays valid, and returns 0,
	 * or refuses it with nonzero after printing its own warning (naming
	 * what it accepts), leaving *var as it was.
	 */
	int (*set_item)(const char *item, size_t len);
	const char *help;
};

/* Places a descriptor in the registry; the parser finds it by section. */
#define __BOOT_OPTION(id)                                                                   \
	static const struct boot_option __boot_option_##id __used __section("boot_options") \
		__aligned(8)

#define BOOT_OPTION_BOOL(id, nm, v, hlp) \
	__BOOT_OPTION(id) = { .name = nm, .type = OPT_BOOL, .var = (v), .help = hlp }
#define BOOT_OPTION_INT(id, nm, v, lo, hi, hlp)                                                \
	__BOOT_OPTION(id) = {                                                                  \
		.name = nm, .type = OPT_INT, .var = (v), .min = (lo), .max = (hi), .help = hlp \
	}
#define BOOT_OPTION_SIZE(id, nm, v, lo, hi, hlp) \
	__BOOT_OPTION(id) = { .name = nm,        \
			      .type = OPT_INT,   \
			      .var = (v),        \
			      .min = (lo),       \
			      .max = (hi),       \
			      .suffix = true,    \
			      .help = hlp }
#define BOOT_OPTION_STRING(id, nm, v, ch, hlp) \
	__BOOT_OPTION(                         \
		id) = { .name = nm, .type = OPT_STRING, .var = (v), .choices = (ch), .help = hlp }
#define BOOT_OPTION_STRING_FN(id, nm, v, fn, hlp) \
	__BOOT_OPTION(                            \
		id) = { .name = nm, .type = OPT_STRING, .var = (v), .set_item = (fn), .help = hlp }
#define BOOT_OPTION_LIST(id, nm, fn, hlp) \
	__BOOT_OPTION(id) = { .name = nm, .type = OPT_LIST, .set_item = (fn), .help = hlp }

/*
 * Parses cmdline against opts[0..n): words separated by blanks (space,
 * tab, newline), each "name" or "name=value", where value may be "double
 * quoted" to hold blanks. In names '-' and '_' are the same, as in Linux.
 * An unknown name or a bad value gives one pr_warn naming it and leaves
 * the variable at its current value; a later word overrides an earlier
 * one. A bare "--" ends the options: the rest is for init (see
 * cmdline_init_args()). Returns the number of warnings.
 *
 * The parser keeps its own copy of the text (up to CMDLINE_MAX - 1 bytes;
 * a longer line is cut before the word that crosses the limit, with a
 * warning), so OPT_STRING values stay valid after the caller's buffer goes
 * away, until the next parse. A value matched against .choices points at
 * the choice itself and stays valid for good.
 *
 * OPT_LIST: a value with an empty item ("a,,b", "a,") is refused whole,
 * before .set_item sees anything. Otherwise the items go to .set_item in
 * order and the first refused one stops the list: the items before it
 * have taken effect (set_item applies side effects and cannot take them
 * back), the refused one and those after it have not.
 */
#define CMDLINE_MAX 1024
int cmdline_parse_options(const char *cmdline, const struct boot_option *opts, size_t n);

/* Parses against every BOOT_OPTION_* in the image (the boot_options section). */
int cmdline_parse(const char *cmdline);

/* The command line as kept by the last parse, for printing; "" before any. */
const char *cmdline_get(void);

/*
 * What followed a bare "--" in the last parse, blanks trimmed at the
 * front: arguments for init, not for the kernel. "" when there was none.
 */
const char *cmdline_init_args(void);

/*
 * Does the text of the last parse (the whole line, before a bare "--")
 * hold a word setting option name, "name" or "name=..." ('-' and '_'
 * alike)? For options that set others (sched_model=) and must leave alone
 * the ones given on the line, whichever comes first.
 */
bool cmdline_names_option(const char *name);

/*
 * Prints every registered option as "name=value  help" with pr_info,
 * sorted by name: the listing behind the cmdline_help option.
 */
void cmdline_print_options(void);

#endif
