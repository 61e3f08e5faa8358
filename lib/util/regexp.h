/* SPDX-License-Identifier: GPL-3.0-or-later */
/* regexp.h: notmuch's regular expressions (POSIX ERE through glibc's regcomp, with the two things it
 * does not bound refused: see regexp.c), for the SQL function regexp() and the planner's plan-time
 * matches over small tables (tags, folders, directories). Nothing here knows queries or the schema. */
#ifndef MAILDEX_REGEXP_H
#define MAILDEX_REGEXP_H

#include <sqlite3.h>
#include <stdbool.h>
#include <talloc.h>

struct maildex__regex;

/* Compiles pattern. Returns NULL and sets *out (free it with maildex__regex_free), or returns a
 * message talloc'd on ctx ("invalid regex 'x(': ...") with *out NULL. */
char *maildex__regex_compile(void *ctx, const char *pattern, struct maildex__regex **out);

/* Whether text (NULL: the empty string) matches anywhere. */
bool maildex__regex_match(const struct maildex__regex *r, const char *text);

/* Frees a compiled pattern. Accepts NULL. */
void maildex__regex_free(struct maildex__regex *r);

/* NULL when pattern compiles, else the message (talloc'd on ctx). */
char *maildex__regex_check(void *ctx, const char *pattern);

/* Registers regexp(pattern, value) on a connection (so `value REGEXP pattern` works): 1 when value
 * matches, compiled once per statement. Returns SQLITE_OK or an SQLite error code. */
int maildex__regexp_register(sqlite3 *sql);

#endif
