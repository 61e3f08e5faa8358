/* SPDX-License-Identifier: GPL-3.0-or-later */
/* planner.h: what the planner's files share, and nobody else sees. plan.c composes (AND,
 * OR, NOT, XOR, thread:{}), picks the driving index and assembles the plan; fields.c holds one
 * handler per query field (how a tag:, folder:, date: ... term is probed per row, drives a stream,
 * and estimates its matches); fts.c the full-text fields. Every user value becomes a bound
 * parameter or a bound set: SQL text is built only from the planner's own pieces. */
#ifndef MAILDEX_QUERY_PLANNER_H
#define MAILDEX_QUERY_PLANNER_H

#include "plan-types.h"
#include "ast.h"
#include "sqlext/sets.h"

#include <glib.h>

/* Counts that compare drivers stop here, so planning costs the same small amount at any store size;
 * a count that reaches the cap is MAILDEX__EST_MANY, and loses to any exact (stored) size. */
#define MAILDEX__ESTIMATE_CAP 1000
/* The estimate of a count that reached its cap, or of something never counted: more than any stored
 * size, so that an exact count of 2,000 beats a count that stopped at 1,000 (and a sum of them). */
#define MAILDEX__EST_MANY (INT64_MAX / 4)
/* An OR, a tag regex or a recursive path drives as a UNION of at most this many ordered arms. */
#define MAILDEX__MAX_ARMS 16

/* One way into the messages: FROM ... WHERE ..., whose key column equals m.id. */
struct maildex__arm {
    const char *from;  /* the messages row, when joined, is always aliased m */
    const char *key;
    const char *where; /* the driving constraint plus every probe */
    bool files;        /* driven from files: a message can appear once per file */
    bool unordered;    /* not in key order (a join with a set's rows): the stream's ORDER BY sorts */
};

/* The arms that stream exactly a node's matches. */
struct maildex__drive {
    struct maildex__arm *arms;
    size_t narms;
    enum maildex__driver kind;
    int tag_param; /* one tag and nothing else: the parameter holding its id (stored counts) */
};

struct maildex__planner {
    void *ctx; /* the plan: everything below is allocated on it */
    maildex_db_t *db;
    const struct maildex__plan_options *opts;
    GArray *binds;             /* struct maildex__bind */
    maildex_status_t st;       /* sticky: once set, every step does nothing */
    int64_t now;
    int64_t stored;            /* messages in the store (meta's count), looked up once; 0 until then */
    int64_t bulk_rows;         /* while probes are made for a driver that reads every row before the
                                * first comes out (a full-text group with a prefix): its estimate */
    int params;                /* parameters used so far */
    bool costly;               /* a probe reads a full-text cursor */
    const char *excluded_ids;  /* "?k, ?l": the excluded tags that exclude something, or NULL */
    struct maildex__set *hidden_tags; /* when excluded messages are no results: those tags' ids, which a
                                       * drive need not stream (every message they hold is hidden) */
    GHashTable *ids;           /* node -> resolved id (int64_t *), looked up once per node */
    GHashTable *thread_sets;   /* node -> struct maildex__set * of thread:{node}, found once */
    GHashTable *term_sets;     /* term or OR node -> struct maildex__set * of the ids it names */
    GHashTable *key_sets;      /* node -> struct maildex__set * of its messages, read once: a long
                                * OR/XOR, a tag probed under a bulk driver, a term matched at plan
                                * time (an id or property wildcard, a property regex or (of ...)) */
    GHashTable *rewrites;      /* node -> the node it stands for, made once: the words of a full-text
                                * (field (of ...)) */
};

/* The handler of one query field. probe: an SQL expression over the messages row aliased a, true
 * when the message matches n. drive: fills d with arms streaming n's matches, or returns false when n
 * cannot drive (it is then probed). estimate: n's matches, exact or counted up to cap
 * (MAILDEX__EST_MANY when the count reached it, or n cannot be counted); cheap estimates (stored
 * counts) ignore cap. */
struct maildex__field_ops {
    const char *(*probe)(struct maildex__planner *p, const struct maildex__qnode *n, const char *a);
    bool (*drive)(struct maildex__planner *p, const struct maildex__qnode *n,
                  struct maildex__drive *d);
    int64_t (*estimate)(struct maildex__planner *p, const struct maildex__qnode *n, int64_t cap);
    bool cheap_estimate; /* estimate reads a stored count, never the matches */
};

/* The handler for a term's field (the full-text fields and the regex forms included). */
const struct maildex__field_ops *maildex__field_ops(const struct maildex__qnode *n);

/* The handler of an OR whose terms are all of one field that has a set form (tag:, folder:, path:,
 * id:, thread:, none of them regexes), or NULL: `tag:a tag:b ...` with ten thousand terms is one
 * set, probed by binary search, instead of ten thousand probes per message. Its drive may refuse
 * (the planner then tries a union of the terms). */
const struct maildex__field_ops *maildex__or_ops(const struct maildex__qnode *n);

/* The handler of a (field (of ...)) node whose field has a set form (tags, folders, directories,
 * properties), or NULL (a full-text field: maildex__fts_same). */
const struct maildex__field_ops *maildex__same_ops(const struct maildex__qnode *n);

/* ---- shared by the handlers (plan.c) ----------------------------------------------------------- */

/* A formatted string on the plan; "0" (and the status set) when out of memory. */
char *maildex__plan_fmt(struct maildex__planner *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Parameter numbers for a bound value, set or full-text cursor. */
int maildex__plan_int(struct maildex__planner *p, int64_t value);
int maildex__plan_text(struct maildex__planner *p, const char *value);
int maildex__plan_set(struct maildex__planner *p, const struct maildex__set *set);
int maildex__plan_match(struct maildex__planner *p, struct maildex__match *match);

/* Runs a cached statement with text (or, for _int, key) bound to ?1 and returns its first column, or
 * dflt when there is no row; errors stick to p. */
int64_t maildex__plan_lookup(struct maildex__planner *p, maildex__stmt_id_t id, const char *text,
                             int64_t dflt);
int64_t maildex__plan_lookup_int(struct maildex__planner *p, maildex__stmt_id_t id, int64_t key,
                                 int64_t dflt);

/* The id of n's value through a cached look-up, resolved once per node: -1 when there is none. */
int64_t maildex__plan_node_id(struct maildex__planner *p, const struct maildex__qnode *n,
                              maildex__stmt_id_t id);

/* Counts the rows of `SELECT 1 FROM from_where` with ?1 = a (and ?2 = b when two), up to cap:
 * MAILDEX__EST_MANY when there are cap or more. */
int64_t maildex__plan_count(struct maildex__planner *p, const char *from_where, int64_t a, int64_t b,
                            int nargs, int64_t cap);

/* Sets d to one arm. */
bool maildex__plan_arm(struct maildex__planner *p, struct maildex__drive *d,
                       enum maildex__driver kind, const char *from, const char *key,
                       const char *where, bool files);

/* Drives the rows whose column holds one of set's values (from, key as for an arm; repeats when a
 * message has several rows): a union of one arm per value, merged in key order, up to
 * MAILDEX__MAX_ARMS values; beyond, one arm joining the rows of maildex_set(set) (which SQLite then
 * sorts into key order). False when set is NULL (an error is on p). */
bool maildex__plan_drive_set(struct maildex__planner *p, struct maildex__drive *d,
                             const struct maildex__set *set, enum maildex__driver kind,
                             const char *from, const char *key, const char *column, bool repeats);

/* parts joined by op in balanced parentheses (SQLite nests `a OR b OR c` one level per term and
 * refuses an expression deeper than 1,000), written once; empty when there are none. And SELECTs
 * joined by a compound operator (" UNION "), flat as SQL wants them. */
const char *maildex__plan_join(struct maildex__planner *p, const char *const *parts, size_t n,
                               const char *op, const char *empty);
const char *maildex__plan_compound(struct maildex__planner *p, const char *const *selects, size_t n,
                                   const char *op);

/* Sets d to no message at all. */
bool maildex__plan_none(struct maildex__planner *p, struct maildex__drive *d);

/* a without its join with messages when its probes read no column of m but the id, which they
 * then read from the arm's key: the join is a seek per match for nothing. */
struct maildex__arm maildex__arm_without_unused_join(struct maildex__planner *p, struct maildex__arm a);

/* Fills plan's stream and ranged stream (key BETWEEN ?1 AND ?2) from d's arms, the excluded
 * messages left out when plan->hides. */
void maildex__plan_assemble(struct maildex__planner *p, struct maildex__plan *plan, struct maildex__drive *d);

/* SQL counting the stream of d from stored counts when d is every message or one tag (less the
 * excluded messages among them when hiding); NULL otherwise. */
const char *maildex__plan_stored_count(struct maildex__planner *p, const struct maildex__drive *d, bool hiding);

/* The integers of column 0 of sql run with a bound to ?1, as a set; NULL on error (on p). */
struct maildex__set *maildex__plan_read_set(struct maildex__planner *p, const char *sql, int64_t a);

/* `SELECT ... AS k` streaming the keys of the messages matching n, from n's own plan (its values bound
 * as parameters of p); NULL on error (on p). */
const char *maildex__plan_stream(struct maildex__planner *p, const struct maildex__qnode *n);

/* The integers of column 0 of sql, run with the plan's values so far, as a set; NULL on error (on p). */
struct maildex__set *maildex__plan_read_keys(struct maildex__planner *p, const char *sql);

/* Records a syntax error at n's position (the first error wins). */
void maildex__plan_syntax_error(struct maildex__planner *p, const struct maildex__qnode *n,
                                const char *msg);

/* ---- full text (fts.c) -------------------------------------------------------------------------- */

/* Whether n (a term, or an AND/OR of them, NOT under AND included, or an XOR of two or three of them
 * without a prefix) can be one FTS5 MATCH. */
bool maildex__fts_able(const struct maildex__qnode *n);

/* Whether n holds a prefix term (`lun*`): FTS5 merges its whole doclist whenever it starts it. */
bool maildex__fts_has_prefix(const struct maildex__qnode *n);
/* Whether n is a lone prefix whose keys the planner reads from the index's pages (fts-prefix.h),
 * reading them now: it is then a part of its own in an AND, not a piece of the AND's FTS5
 * expression, where FTS5 would merge its words' positions. */
bool maildex__fts_lone_prefix(struct maildex__planner *p, const struct maildex__qnode *n);
/* A free-text word's matches read from the index's pages (fts-prefix.h) once per query, when the
 * query's every match is read anyway (opts->every_match); NULL for anything else, or when FTS5 must
 * answer it. */
const struct maildex__set *maildex__fts_word_set(struct maildex__planner *p, const struct maildex__qnode *n);
/* Whether n is a lone prefix whose keys the planner has already read (fts-prefix.h), so that
 * streaming it costs no more than any set. */
bool maildex__fts_prefix_read(struct maildex__planner *p, const struct maildex__qnode *n);

/* The MATCH expression of an fts_able n, or of the children of an AND that take[] selects; *prefix
 * is set when it holds a prefix term. */
const char *maildex__fts_expression(struct maildex__planner *p, const struct maildex__qnode *n,
                                    bool *prefix);
const char *maildex__fts_conjunction(struct maildex__planner *p, struct maildex__qnode *const *c,
                                     size_t n, const bool *take, bool *prefix);

/* An estimate of the messages an fts_able n (or the conjunction) matches, from the word list. */
int64_t maildex__fts_estimate(struct maildex__planner *p, const struct maildex__qnode *n);
int64_t maildex__fts_conjunction_estimate(struct maildex__planner *p, struct maildex__qnode *const *c,
                                          size_t n, const bool *take);

/* A full-text (field (of ...)) as the OR of the words the field holds in the messages matching its
 * child, each exact (notmuch's expansion into the field's terms, which leaves out their stems; NONE
 * when there are none), made once per node; NULL on error (on p). */
const struct maildex__qnode *maildex__fts_same(struct maildex__planner *p, const struct maildex__qnode *n);

/* The handler of a full-text term matching any word of its field (`(to *)`), which FTS5 cannot say. */
extern const struct maildex__field_ops maildex__fts_any_word_ops;

/* Probe and drive for a MATCH expression. */
const char *maildex__fts_probe(struct maildex__planner *p, const char *expression, bool prefix,
                               const char *a);
bool maildex__fts_drive(struct maildex__planner *p, const char *expression, struct maildex__drive *d);

#endif
