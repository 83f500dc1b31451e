/*
 * sh: reading a line, splitting it into tokens, parsing it into pipelines
 * (all of it checked before anything runs), and the $-expansion of a
 * pipeline's words just before it runs. The syntax is in main.c.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sh.h"

#define ARENA_LEN 8192 /* one line's words after $-expansion */

enum tok { T_END, T_WORD, T_PIPE, T_OR, T_AMP, T_AND, T_SEMI, T_IN, T_OUT, T_APPEND };
static const char *const tok_text[] = { "", "", "|", "||", "&", "&&", ";", "<", ">", ">>" };

/* The arena a pipeline's words expand into. */
static struct {
	char arena[ARENA_LEN];
	size_t used;
	bool overflow, dry; /* dry: only check the syntax, keep nothing */
} lx;

/* ---- Reading and tokenising ---- */

/*
 * Reads one line from fd into buf without its end ('\n', '\r' or "\r\n"), a
 * byte at a time so that a program started from this input finds the rest of
 * it unread. Returns the length, -1 at the end of input, -2 if the line did
 * not fit (the rest of it is dropped).
 */
int read_line(int fd, char *buf, int size)
{
	static bool after_cr;
	bool too_long = false;
	int len = 0;

	for (;;) {
		char c;
		ssize_t n = read(fd, &c, 1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (len == 0 && !too_long)
				return -1;
			break;
		}
		if (c == '\n' && after_cr) {
			after_cr = false;
			continue;
		}
		after_cr = c == '\r';
		if (c == '\n' || c == '\r')
			break;
		if (len + 1 < size)
			buf[len++] = c;
		else
			too_long = true;
	}
	buf[len] = '\0';
	return too_long ? -2 : len;
}

static void put(char c)
{
	if (lx.dry)
		return;
	if (lx.used < ARENA_LEN)
		lx.arena[lx.used++] = c;
	else
		lx.overflow = true;
}

static void put_str(const char *s)
{
	while (*s)
		put(*s++);
}

/* Appends the value of the $-reference after the '$' at *pp; advances *pp. */
static void expand(const char **pp)
{
	const char *p = *pp;
	char num[24], name[64];
	size_t len = 0;

	if (*p == '?' || *p == '$' || *p == '!') {
		long v = *p == '?' ? sh.status : *p == '$' ? (long)getpid() : (long)sh.last_bg;

		if (*p != '!' || sh.last_bg) {
			snprintf(num, sizeof(num), "%ld", v);
			put_str(num);
		}
		*pp = p + 1;
		return;
	}
	if (!isalpha((unsigned char)*p) && *p != '_') {
		put('$'); /* not a reference: a plain dollar sign */
		return;
	}
	while ((isalnum((unsigned char)*p) || *p == '_') && len + 1 < sizeof(name))
		name[len++] = *p++;
	name[len] = '\0';
	if (getenv(name))
		put_str(getenv(name));
	*pp = p;
}

static int near_error(int kind)
{
	fprintf(stderr, "sh: syntax error near '%s'\n", tok_text[kind]);
	return -1;
}

static int end_error(int kind)
{
	fprintf(stderr, "sh: syntax error: '%s' at end of line\n", tok_text[kind]);
	return -1;
}

static int unterminated(void)
{
	fprintf(stderr, "sh: syntax error: unterminated quote\n");
	return -1;
}

/* Reads one word at *pp into the arena (unless dry). Returns whether it is a
 * word at all (an unquoted expansion to nothing is not), or -1 on a syntax
 * error. */
static int lex_word(const char **pp)
{
	const char *p = *pp;
	bool started = false; /* a quote or a literal character was seen */
	size_t start = lx.used;

	while (*p && !strchr(" \t|&;<>", *p)) {
		if (*p == '\\') {
			if (!p[1]) {
				fprintf(stderr, "sh: syntax error: '\\' at end of line\n");
				return -1;
			}
			put(p[1]);
			p += 2;
			started = true;
		} else if (*p == '\'') {
			const char *end = strchr(p + 1, '\'');

			if (!end)
				return unterminated();
			while (++p < end)
				put(*p);
			p++;
			started = true;
		} else if (*p == '"') {
			for (p++; *p != '"';) {
				if (!*p)
					return unterminated();
				if (*p == '\\' && p[1] && strchr("\"\\$", p[1])) {
					put(p[1]);
					p += 2;
				} else if (*p++ == '$') {
					expand(&p);
				} else {
					put(p[-1]);
				}
			}
			p++;
			started = true;
		} else if (*p++ == '$') {
			expand(&p);
		} else {
			put(p[-1]);
			started = true;
		}
	}
	*pp = p;
	put('\0');
	return started || lx.used - start > 1;
}

/* Reads the token at *pp: its kind, and for a word where it starts. T_END at
 * the end of the line or a comment, -1 on a syntax error. */
static int next_token(const char **pp, const char **src)
{
	const char *p = *pp;
	int kind = T_WORD;

	while (*p == ' ' || *p == '\t')
		p++;
	*src = p;
	if (!*p || *p == '#')
		return T_END;
	if (*p == '|' || *p == '&')
		kind = (*p == '|' ? T_PIPE : T_AMP) + (p[1] == *p); /* T_OR, T_AND */
	else if (*p == ';' || *p == '<')
		kind = *p == ';' ? T_SEMI : T_IN;
	else if (*p == '>')
		kind = p[1] == '>' ? T_APPEND : T_OUT;
	if (kind != T_WORD) {
		p += strlen(tok_text[kind]);
	} else {
		lx.dry = true;
		if (lex_word(&p) < 0)
			return -1;
	}
	*pp = p;
	return kind;
}

/* Expands the word at src into the arena; NULL if it expands to no word. */
static char *expand_word(const char *src)
{
	char *word = lx.arena + lx.used;

	return lex_word(&src) > 0 ? word : NULL;
}

/* Expands pl's words just before it runs. Returns 0 or -1 (said why). */
int expand_pipeline(struct pipeline *pl)
{
	bool empty = false;

	lx.dry = false;
	lx.used = 0;
	lx.overflow = false;
	for (int i = 0; i < pl->n; i++) {
		struct cmd *c = &pl->cmd[i];

		c->argc = 0;
		for (int k = 0; k < c->nword; k++) {
			char *w = expand_word(c->word[k]);

			if (w)
				c->argv[c->argc++] = w;
		}
		c->argv[c->argc] = NULL;
		c->in = c->in_word ? expand_word(c->in_word) : NULL;
		c->out = c->out_word ? expand_word(c->out_word) : NULL;
		empty |= !c->argc || (c->in_word && !c->in) || (c->out_word && !c->out);
	}
	if (lx.overflow)
		fprintf(stderr, "sh: line too long after expansion (limit %d)\n", ARENA_LEN);
	else if (empty)
		fprintf(stderr, "sh: a command or file name expanded to nothing\n");
	return lx.overflow || empty ? -1 : 0;
}

/* ---- Parsing ---- */

/* Parses the line at p into ln, checking all of it before anything runs.
 * Returns 0, or -1 after printing the error. */
int parse(const char *p, struct line *ln)
{
	struct pipeline *pl = NULL;
	struct cmd *c = NULL;
	enum conn next = C_SEQ;
	int kind, after, last = T_SEMI;
	const char *src, *name;

	ln->n = 0;
	while ((kind = next_token(&p, &src)) != T_END) {
		if (kind < 0)
			return -1;
		if (!pl) {
			if (ln->n == MAX_PIPELINES) {
				fprintf(stderr, "sh: too many commands (limit %d)\n", MAX_PIPELINES);
				return -1;
			}
			pl = &ln->pl[ln->n++];
			memset(pl, 0, sizeof(*pl));
			pl->conn = next;
			pl->n = 1;
			c = &pl->cmd[0];
		}
		last = kind;
		switch (kind) {
		case T_WORD:
			if (c->nword == MAX_ARGS) {
				fprintf(stderr, "sh: too many arguments (limit %d)\n", MAX_ARGS);
				return -1;
			}
			c->word[c->nword++] = src;
			break;
		case T_IN:
		case T_OUT:
		case T_APPEND:
			after = next_token(&p, &name);
			if (after < 0)
				return -1;
			if (after == T_END)
				return end_error(kind);
			if (after != T_WORD)
				return near_error(after);
			*(kind == T_IN ? &c->in_word : &c->out_word) = name;
			c->append |= kind == T_APPEND;
			break;
		case T_PIPE:
			if (!c->nword)
				return near_error(kind);
			if (pl->n == MAX_CMDS) {
				fprintf(stderr, "sh: pipeline too long (limit %d)\n", MAX_CMDS);
				return -1;
			}
			c = &pl->cmd[pl->n++];
			break;
		default: /* ; & && || end a pipeline */
			if (!c->nword)
				return near_error(kind);
			pl->background = kind == T_AMP;
			next = kind == T_AND ? C_AND : kind == T_OR ? C_OR : C_SEQ;
			pl = NULL;
			break;
		}
	}
	if (pl && !c->nword) {
		if (pl->n == 1) /* only redirections */
			fprintf(stderr, "sh: syntax error: a redirection without a command\n");
		return pl->n == 1 ? -1 : end_error(T_PIPE);
	}
	return !pl && (last == T_AND || last == T_OR) ? end_error(last) : 0;
}
