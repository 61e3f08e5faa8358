/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The query planner: a parsed query (lib/query/ast.h) becomes SQL that streams matching message ids in key
 * order (newest or oldest first) and stops when the caller stops stepping.
 *
 * The plan is built around one driving index chosen by selectivity (tags.messages,
 * threads.messages, fts5vocab document counts, and for folders, paths, properties and date ranges
 * counts that stop at a small cap, made only when an AND must choose); every other condition is a
 * per-row probe that costs the same at any store size: a primary-key look-up, a binary search in a
 * set built once per query (thread:{...}, regexes over tags, folders and directories, long OR
 * lists), or a step of a full-text cursor that reads each word's matches once per statement
 * (sqlext/sets.h), so any boolean combination costs about the sum of its parts. `ORDER BY` is
 * satisfied by the driving index, so SQLite never sorts or materialises the matches. An OR of
 * drivable terms, and an XOR, drive as a UNION whose arms SQLite merges in key order. Every user value
 * is a bound parameter (?10 and up; ?1..?9 are left to the statements built from the plan). The
 * planner is plan.c (composition) and the handlers it calls through one table (planner.h,
 * handlers.h): field-*.c (tag, id, folder, date ...) and fts.c (full text); they know the schema and
 * SQL, and must not print, read config or know the public iterator types. Private to lib/. */
#ifndef MAILDEX_QUERY_PLAN_H
#define MAILDEX_QUERY_PLAN_H

#include "plan-types.h"
#include "ast.h"

/* "all", "none", "scan", "tag" ... */
const char *maildex__driver_name(enum maildex__driver driver);

/* Plans root for db. Returns MAILDEX_STATUS_OK and sets *out (allocated on ctx); or
 * MAILDEX_STATUS_QUERY_SYNTAX (a bad date, lastmod range or regex) or a database status, with *out
 * NULL and the message recorded on db. */
maildex_status_t maildex__plan_build(void *ctx, maildex_db_t *db, const struct maildex__qnode *root,
                                     const struct maildex__plan_options *opts,
                                     struct maildex__plan **out);

#endif
