/*
 * tools/sim/rtapp_json.h - rt-app's JSON dialect loaded with jansson.
 *
 * rt-app files are JSON plus C comments, trailing commas and repeated keys
 * (rt-app's workgen script renames repeats before rt-app reads the file).
 * This layer turns such a file into a jansson tree in which every object key
 * carries the line it was written on, so repeats stay apart, in file order,
 * and every later message can name its line. rtapp.c walks the tree.
 */
#ifndef FULCRUM_SIM_RTAPP_JSON_H
#define FULCRUM_SIM_RTAPP_JSON_H

#include <stddef.h>

#include <jansson.h>

/* Longest key name the front end accepts (rt-app's own limit is smaller). */
#define RTAPP_KEY_MAX 256

/*
 * Parses text (len bytes, need not be NUL-terminated) as rt-app JSON.
 * Returns the root object, or NULL with "NAME:LINE:COLUMN: why" in err when
 * the text is not JSON (even after comments and trailing commas are
 * blanked) or its root is not an object. The caller json_decref()s the root.
 */
json_t *rtapp_json_load(const char *name, const char *text, size_t len, char *err, size_t errlen);

/* A key of a loaded tree without its line tag, copied into buf (RTAPP_KEY_MAX bytes). */
const char *rtapp_key_name(const char *key, char *buf);

/* The line a key of a loaded tree was written on (1-based). */
unsigned int rtapp_key_line(const char *key);

#endif /* FULCRUM_SIM_RTAPP_JSON_H */
