/*
 * The kernel command line: splits the text GRUB hands over into words and
 * sets the typed boot options that code all over the kernel registers with
 * BOOT_OPTION_*. Bad words are reported once each and otherwise ignored.
 */
#include "cmdline.h"

#include "lib/kstrto.h"
#include "lib/printf.h"
#include "lib/string.h"
#include "printk.h"

/*
 * The registry: the linker gathers every BOOT_OPTION_* descriptor into the
 * section "boot_options" and, since the name is a valid C identifier,
 * provides these bounds. Weak, so an image with no option at all still
 * links (both are then NULL).
 */
extern const struct boot_option __start_boot_options[] __attribute__((weak));
extern const struct boot_option __stop_boot_options[] __attribute__((weak));

/* Each descriptor is 8-aligned; the array walk needs the size to match. */
_Static_assert(sizeof(struct boot_option) % 8 == 0, "boot_option stride must be its size");

static char cmdline_text[CMDLINE_MAX]; /* as given (possibly cut), for cmdline_get() */
static char cmdline_work[CMDLINE_MAX]; /* cut into words in place; strings point here */
static const char *init_args = "";

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static char to_lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static bool equal_nocase(const char *a, const char *b)
{
	while (*a && to_lower(*a) == to_lower(*b)) {
		a++;
		b++;
	}
	return *a == '\0' && *b == '\0';
}

/* Option names: '-' and '_' are interchangeable, as in Linux's parameq(). */
static bool name_matches(const char *name, const char *word, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		char a = name[i] == '-' ? '_' : name[i];
		char b = word[i] == '-' ? '_' : word[i];

		if (name[i] == '\0' || a != b)
			return false;
	}
	return name[len] == '\0';
}

static const struct boot_option *find_option(const struct boot_option *opts, size_t n,
					     const char *word, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (opts[i].name && name_matches(opts[i].name, word, len))
			return &opts[i];
	return NULL;
}

/*
 * Copies the text, cutting it before the word that would cross
 * CMDLINE_MAX - 1 bytes: half a word could be a different, valid value
 * ("mem=1024M" cut to "mem=10"), so the whole word goes.
 */
static int keep_copy(const char *cmdline)
{
	size_t len = strnlen(cmdline, CMDLINE_MAX);

	if (len < CMDLINE_MAX) {
		memcpy(cmdline_text, cmdline, len + 1);
		return 0;
	}
	len = CMDLINE_MAX - 1;
	if (!is_blank(cmdline[len]))
		while (len > 0 && !is_blank(cmdline[len - 1]))
			len--;
	memcpy(cmdline_text, cmdline, len);
	cmdline_text[len] = '\0';
	pr_warn("cmdline: command line longer than %d bytes, cut to its first %zu\n",
		CMDLINE_MAX - 1, len);
	return 1;
}

/*
 * Cuts the next word out of the text at *pos, in place: quote characters
 * are removed (a quoted run may hold blanks) and the word is
 * NUL-terminated. Returns NULL at the end of the text. *quotes says
 * whether the word held any quote, *open whether one was left open.
 */
static char *next_word(char **pos, bool *quotes, bool *open)
{
	char *r = *pos, *w, *word;
	bool in_quote = false;

	while (is_blank(*r))
		r++;
	if (*r == '\0') {
		*pos = r;
		return NULL;
	}
	word = w = r;
	*quotes = false;
	for (; *r && (in_quote || !is_blank(*r)); r++) {
		if (*r == '"') {
			in_quote = !in_quote;
			*quotes = true;
			continue;
		}
		*w++ = *r;
	}
	/* Step over the blank before writing the NUL, which may land on it. */
	if (*r)
		r++;
	*w = '\0';
	*pos = r;
	*open = in_quote;
	return word;
}

static int parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "1", "on", "yes", "true", "y" };
	static const char *const no[] = { "0", "off", "no", "false", "n" };

	for (size_t i = 0; i < ARRAY_SIZE(yes); i++) {
		if (equal_nocase(s, yes[i])) {
			*out = true;
			return 0;
		}
		if (equal_nocase(s, no[i])) {
			*out = false;
			return 0;
		}
	}
	return -1;
}

/* Appends to buf[*len..size), keeping it NUL-terminated whatever happens. */
static void append(char *buf, size_t size, size_t *len, const char *s)
{
	while (*s && *len + 1 < size)
		buf[(*len)++] = *s++;
	buf[*len] = '\0';
}

/* What the option accepts, for warnings: "integer 0..8", "one of: a, b". */
static void describe(const struct boot_option *opt, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	switch (opt->type) {
	case OPT_BOOL:
		append(buf, size, &len, "on/off, yes/no, true/false, 1/0");
		break;
	case OPT_INT:
		ksnprintf(buf, size, "%s %lld..%lld%s", opt->suffix ? "size" : "integer",
			  (long long)opt->min, (long long)opt->max,
			  opt->suffix ? ", K/M/G suffix allowed" : "");
		break;
	case OPT_STRING:
		if (opt->set_item) {
			append(buf, size, &len, "a registered name");
			break;
		}
		if (!opt->choices) {
			append(buf, size, &len, "non-empty text");
			break;
		}
		append(buf, size, &len, "one of: ");
		for (size_t i = 0; opt->choices[i]; i++) {
			if (i)
				append(buf, size, &len, ", ");
			append(buf, size, &len, opt->choices[i]);
		}
		break;
	case OPT_LIST:
		append(buf, size, &len, "non-empty items separated by ','");
		break;
	}
}

/* The option's current value as the user would write it: 7, true, 'none'. */
static void format_value(const struct boot_option *opt, char *buf, size_t size, bool quote)
{
	const char *s;

	switch (opt->type) {
	case OPT_BOOL:
		ksnprintf(buf, size, "%s", *(const bool *)opt->var ? "true" : "false");
		break;
	case OPT_INT:
		ksnprintf(buf, size, "%lld", (long long)*(const s64 *)opt->var);
		break;
	case OPT_STRING:
		s = *(const char *const *)opt->var;
		if (!s)
			ksnprintf(buf, size, "(unset)");
		else
			ksnprintf(buf, size, quote ? "'%s'" : "%s", s);
		break;
	case OPT_LIST:
		ksnprintf(buf, size, "(list)");
		break;
	}
}

static int warn_bad_value(const struct boot_option *opt, const char *value)
{
	char what[192], cur[64];

	describe(opt, what, sizeof(what));
	format_value(opt, cur, sizeof(cur), true);
	pr_warn("cmdline: bad value '%s' for '%s' (%s), keeping %s\n", value, opt->name, what, cur);
	return 1;
}

static int warn_no_value(const struct boot_option *opt)
{
	char what[192], cur[64];

	describe(opt, what, sizeof(what));
	if (opt->type == OPT_LIST) {
		pr_warn("cmdline: option '%s' needs a value (%s), ignored\n", opt->name, what);
		return 1;
	}
	format_value(opt, cur, sizeof(cur), true);
	pr_warn("cmdline: option '%s' needs a value (%s), keeping %s\n", opt->name, what, cur);
	return 1;
}

/*
 * Hands a list's items to set_item. The value is checked for empty items
 * first, so that mistake costs nothing; a refusal by set_item can only
 * stop the list where it is (see cmdline.h).
 */
static int set_list(const struct boot_option *opt, char *value)
{
	char *item = value;

	for (const char *p = value;; p++) {
		if ((*p == ',' || *p == '\0') && (p == value || p[-1] == ',')) {
			pr_warn("cmdline: bad value '%s' for '%s' (empty list item), ignored\n",
				value, opt->name);
			return 1;
		}
		if (*p == '\0')
			break;
	}
	for (;;) {
		char *end = strchr(item, ',');
		size_t len = end ? (size_t)(end - item) : strlen(item);
		int refused;

		/* NUL-terminate the item for set_item, then put the comma back. */
		if (end)
			*end = '\0';
		refused = opt->set_item(item, len);
		if (end)
			*end = ',';
		if (refused) {
			pr_warn("cmdline: bad item '%.*s' in '%s=%s', items before it kept, rest "
				"ignored\n",
				(int)len, item, opt->name, value);
			return 1;
		}
		if (!end)
			return 0;
		item = end + 1;
	}
}

/* Sets opt from value (NULL for a bare name); returns the warnings given. */
static int set_option(const struct boot_option *opt, char *value)
{
	s64 num;
	bool b;

	if (!value) {
		if (opt->type != OPT_BOOL)
			return warn_no_value(opt);
		*(bool *)opt->var = true;
		return 0;
	}
	switch (opt->type) {
	case OPT_BOOL:
		if (parse_bool(value, &b))
			return warn_bad_value(opt, value);
		*(bool *)opt->var = b;
		return 0;
	case OPT_INT:
		if (kstrtos64(value, strlen(value), opt->suffix, &num) || num < opt->min ||
		    num > opt->max)
			return warn_bad_value(opt, value);
		*(s64 *)opt->var = num;
		return 0;
	case OPT_STRING:
		if (opt->set_item)
			return opt->set_item(value, strlen(value)) ? 1 : 0;
		if (!opt->choices) {
			if (*value == '\0')
				return warn_bad_value(opt, value);
			*(const char **)opt->var = value;
			return 0;
		}
		for (size_t i = 0; opt->choices[i]; i++) {
			if (strcmp(value, opt->choices[i]) == 0) {
				*(const char **)opt->var = opt->choices[i];
				return 0;
			}
		}
		return warn_bad_value(opt, value);
	case OPT_LIST:
		return set_list(opt, value);
	}
	return warn_bad_value(opt, value);
}

static int parse_word(char *word, const struct boot_option *opts, size_t n)
{
	char *eq = strchr(word, '=');
	size_t name_len = eq ? (size_t)(eq - word) : strlen(word);
	const struct boot_option *opt;

	if (name_len == 0) {
		pr_warn("cmdline: no option name in '%s', ignored\n", word);
		return 1;
	}
	opt = find_option(opts, n, word, name_len);
	if (!opt) {
		pr_warn("cmdline: unknown option '%s', ignored\n", word);
		return 1;
	}
	return set_option(opt, eq ? eq + 1 : NULL);
}

int cmdline_parse_options(const char *cmdline, const struct boot_option *opts, size_t n)
{
	char *pos = cmdline_work, *word;
	bool quotes, open;
	int warnings;

	warnings = keep_copy(cmdline ? cmdline : "");
	memcpy(cmdline_work, cmdline_text, sizeof(cmdline_work));
	init_args = "";

	while ((word = next_word(&pos, &quotes, &open))) {
		if (open) {
			pr_warn("cmdline: unterminated quote in '%s', ignored\n", word);
			warnings++;
			break;
		}
		if (!quotes && strcmp(word, "--") == 0) {
			while (is_blank(*pos))
				pos++;
			init_args = pos;
			break;
		}
		warnings += parse_word(word, opts, n);
	}
	return warnings;
}

static size_t registry_size(void)
{
	if (!__start_boot_options || !__stop_boot_options)
		return 0;
	return (size_t)(__stop_boot_options - __start_boot_options);
}

int cmdline_parse(const char *cmdline)
{
	return cmdline_parse_options(cmdline, __start_boot_options, registry_size());
}

const char *cmdline_get(void)
{
	return cmdline_text;
}

const char *cmdline_init_args(void)
{
	return init_args;
}

bool cmdline_names_option(const char *name)
{
	const char *p = cmdline_text;

	for (;;) {
		const char *word;
		bool in_quote = false;

		while (is_blank(*p))
			p++;
		if (*p == '\0')
			return false;
		word = p;
		for (; *p && (in_quote || !is_blank(*p)); p++)
			if (*p == '"')
				in_quote = !in_quote;
		if (p - word == 2 && word[0] == '-' && word[1] == '-')
			return false; /* the rest is init's */
		for (const char *c = word; c < p && *c != '=' && *c != '"'; c++)
			if (name_matches(name, word, (size_t)(c + 1 - word)) &&
			    (c + 1 == p || c[1] == '='))
				return true;
	}
}

/* True if option a sorts before option b: by name, then by place in the registry. */
static bool sorts_before(const struct boot_option *a, const struct boot_option *b)
{
	int c = strcmp(a->name, b->name);

	return c < 0 || (c == 0 && a < b);
}

/*
 * A selection sort over the registry, printing as it goes: quadratic, but
 * the registry holds a few dozen options and this needs no memory.
 */
void cmdline_print_options(void)
{
	const struct boot_option *opts = __start_boot_options, *last = NULL;
	size_t n = registry_size();

	for (size_t printed = 0; printed < n; printed++) {
		const struct boot_option *next = NULL;
		char word[96], val[64];

		for (size_t i = 0; i < n; i++) {
			if (!opts[i].name || (last && !sorts_before(last, &opts[i])))
				continue;
			if (!next || sorts_before(&opts[i], next))
				next = &opts[i];
		}
		if (!next)
			break;
		format_value(next, val, sizeof(val), false);
		ksnprintf(word, sizeof(word), "%s=%s", next->name, val);
		pr_info("  %-32s %s\n", word, next->help ? next->help : "");
		last = next;
	}
}
