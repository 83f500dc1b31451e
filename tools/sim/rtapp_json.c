/*
 * tools/sim/rtapp_json.c - rt-app's JSON dialect loaded with jansson.
 *
 * jansson parses strict JSON and keeps one value per key; rt-app's files
 * have comments, trailing commas and repeated keys. Two passes over the text
 * bridge the gap without parsing JSON ourselves: the first blanks comments
 * and trailing commas with spaces (so lines and columns do not move, and
 * jansson's error positions are the file's own); after jansson has accepted
 * that, the second appends to every object key an invisible tag, "\u001f"
 * then its line and a sequence number. No two keys are then equal, jansson
 * keeps them all in file order, and each knows its line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtapp_json.h"

/* The byte that separates a key's name from its tag once jansson has decoded "\u001f". */
#define TAG_SEP '\x1f'

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Index of the closing quote of the string opening at s[i], or len if unterminated. */
static size_t string_end(const char *s, size_t len, size_t i)
{
	for (i++; i < len && s[i] != '"'; i++) {
		if (s[i] == '\\' && i + 1 < len)
			i++;
	}
	return i;
}

/*
 * Blanks C comments of both kinds and the commas that end an object or array
 * ("[1, 2,]"), as rt-app's parser accepts them, keeping every newline.
 * Returns 0, or the line of a comment that never ends.
 */
static unsigned int blank_dialect(char *s, size_t len)
{
	size_t i = 0, last = len, before_last = len; /* the last two significant bytes */
	unsigned int line = 1;

	while (i < len) {
		char c = s[i];

		if (c == '"') {
			size_t end = string_end(s, len, i);

			for (; i < end; i++)
				line += s[i] == '\n';
			before_last = last;
			last = i;
			i++;
			continue;
		}
		if (c == '/' && i + 1 < len && s[i + 1] == '*') {
			unsigned int start = line;

			s[i++] = ' ';
			s[i++] = ' ';
			while (i < len && !(s[i] == '*' && i + 1 < len && s[i + 1] == '/')) {
				if (s[i] == '\n')
					line++;
				else
					s[i] = ' ';
				i++;
			}
			if (i >= len)
				return start;
			s[i++] = ' ';
			s[i++] = ' ';
			continue;
		}
		if (c == '/' && i + 1 < len && s[i + 1] == '/') {
			while (i < len && s[i] != '\n')
				s[i++] = ' ';
			continue;
		}
		/* A comma right before a closer, and after a value, is rt-app's trailing comma. */
		if ((c == '}' || c == ']') && last < len && s[last] == ',' && before_last < len &&
		    !strchr(",:{[", s[before_last]))
			s[last] = ' ';
		if (c == '\n')
			line++;
		if (!is_space(c)) {
			before_last = last;
			last = i;
		}
		i++;
	}
	return 0;
}

struct buf {
	char *p;
	size_t len, cap;
};

static int buf_put(struct buf *b, const char *s, size_t n)
{
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		char *p;

		while (cap < b->len + n)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p)
			return -1;
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	return 0;
}

/*
 * Copies JSON text (already accepted by jansson) with every object key
 * tagged: "run" becomes "run\u001f12.3" for the third key, on line 12.
 * Returns 0, 1 with *bad_line set when a key is too long, -1 without memory.
 */
static int tag_keys(const char *s, size_t len, struct buf *out, unsigned int *bad_line)
{
	unsigned int line = 1, seq = 0;
	size_t i = 0;

	while (i < len) {
		size_t end, k;
		char tag[40];
		int n;

		if (s[i] != '"') {
			line += s[i] == '\n';
			if (buf_put(out, &s[i], 1))
				return -1;
			i++;
			continue;
		}
		end = string_end(s, len, i);
		for (k = end + 1; k < len && is_space(s[k]); k++)
			;
		if (k >= len || s[k] != ':') {
			if (buf_put(out, &s[i], end + 1 - i))
				return -1;
			i = end + 1;
			continue;
		}
		if (end - i - 1 >= RTAPP_KEY_MAX) {
			*bad_line = line;
			return 1;
		}
		n = snprintf(tag, sizeof(tag), "\\u001f%u.%u\"", line, ++seq);
		if (buf_put(out, &s[i], end - i) || buf_put(out, tag, (size_t)n))
			return -1;
		i = end + 1;
	}
	return 0;
}

json_t *rtapp_json_load(const char *name, const char *text, size_t len, char *err, size_t errlen)
{
	struct buf tagged = { 0 };
	json_error_t jerr;
	json_t *root = NULL;
	unsigned int line;
	char *copy;
	int rc;

	copy = malloc(len + 1);
	if (!copy) {
		snprintf(err, errlen, "%s: out of memory", name);
		return NULL;
	}
	memcpy(copy, text, len);
	copy[len] = '\0';

	line = blank_dialect(copy, len);
	if (line) {
		snprintf(err, errlen, "%s:%u: comment never ends", name, line);
		goto out;
	}
	root = json_loadb(copy, len, 0, &jerr);
	if (!root) {
		snprintf(err, errlen, "%s:%d:%d: malformed JSON: %s", name, jerr.line, jerr.column,
			 jerr.text);
		goto out;
	}
	json_decref(root);
	root = NULL;

	rc = tag_keys(copy, len, &tagged, &line);
	if (rc) {
		if (rc > 0)
			snprintf(err, errlen, "%s:%u: a key longer than %d bytes", name, line,
				 RTAPP_KEY_MAX - 1);
		else
			snprintf(err, errlen, "%s: out of memory", name);
		goto out;
	}
	root = json_loadb(tagged.p, tagged.len, 0, &jerr);
	if (!root) {
		/* Cannot happen: tagging only lengthens keys that jansson has just accepted. */
		snprintf(err, errlen, "%s:%d: internal error re-reading the keys: %s", name,
			 jerr.line, jerr.text);
		goto out;
	}
	if (!json_is_object(root)) {
		snprintf(err, errlen, "%s:1: the file must hold one JSON object (with \"tasks\")",
			 name);
		json_decref(root);
		root = NULL;
	}
out:
	free(tagged.p);
	free(copy);
	return root;
}

const char *rtapp_key_name(const char *key, char *buf)
{
	const char *sep = strrchr(key, TAG_SEP);
	size_t n = sep ? (size_t)(sep - key) : strlen(key);

	if (n >= RTAPP_KEY_MAX)
		n = RTAPP_KEY_MAX - 1;
	memcpy(buf, key, n);
	buf[n] = '\0';
	return buf;
}

unsigned int rtapp_key_line(const char *key)
{
	const char *sep = strrchr(key, TAG_SEP);

	return sep ? (unsigned int)strtoul(sep + 1, NULL, 10) : 0;
}
