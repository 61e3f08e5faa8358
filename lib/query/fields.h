/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fields.h: every field handler (planner.h's struct maildex__field_ops), one file per kind of field,
 * for the table that picks one for a node (handlers.c). A handler file defines its own and includes
 * this only to check them against it: handlers never call each other. */
#ifndef MAILDEX_QUERY_FIELDS_H
#define MAILDEX_QUERY_FIELDS_H

#include "planner.h"

/* field-names.c: tag: (and is:), folder:, path:, each for a term (a name, a regex, a prefix, a
 * recursive path), an OR of plain terms, and (field (of ...)), which reads a subquery (so its
 * estimate is not cheap). */
extern const struct maildex__field_ops maildex__tag_ops, maildex__tag_same_ops;
extern const struct maildex__field_ops maildex__folder_ops, maildex__folder_same_ops;
extern const struct maildex__field_ops maildex__path_ops, maildex__path_same_ops;

/* field-id-thread.c: id: and mid: (a Message-ID or a regex; an id prefix, read at plan time), a long
 * OR of ids; thread: (a thread id; a prefix or regex of one), a long OR of thread ids. */
extern const struct maildex__field_ops maildex__id_ops, maildex__id_prefix_ops, maildex__id_or_ops;
extern const struct maildex__field_ops maildex__thread_ops, maildex__thread_pattern_ops, maildex__thread_or_ops;

/* field-property.c: property:key=value; a prefix, a regex or (property (of ...)), read at plan time. */
extern const struct maildex__field_ops maildex__property_ops, maildex__property_keys_ops;

/* field-range.c: date: and lastmod: ranges. */
extern const struct maildex__field_ops maildex__date_ops, maildex__lastmod_ops;

/* fts.c: a full-text term; a full-text AND, OR or XOR as one MATCH; any word of a field (`(to *)`);
 * a full-text (field (of ...)); the from: and subject: regexes. */
extern const struct maildex__field_ops maildex__fts_term_ops, maildex__fts_whole_ops, maildex__fts_any_word_ops,
    maildex__fts_same_ops, maildex__from_regex_ops, maildex__subject_regex_ops;

/* Whether n (a full-text term, or an AND/OR of them, NOT under AND included, or an XOR of two or three
 * of them without a prefix) can be one FTS5 MATCH: the table's test for maildex__fts_whole_ops. */
bool maildex__fts_able(const struct maildex__qnode *n);

#endif
