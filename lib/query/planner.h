/* SPDX-License-Identifier: GPL-3.0-or-later */
/* planner.h: what the planner's files share, and nobody else sees. plan.c composes (AND, OR, NOT,
 * XOR, thread:{}), picks the driving index and assembles the plan; or-sets.c reads an OR or XOR too
 * long to compose into one set. Every term, and every node that one field answers whole, has a
 * handler with the entry points below, found through one table (handlers.h): field-*.c for tag:,
 * folder:, id:, date: ... and fts.c for the full-text fields. The planner calls handlers through
 * that table only; handlers call the building blocks declared here (planner.c) and the readers
 * below them, and reach the planner only through the callback it hands them (p->stream). Every
 * user value becomes a bound parameter or a bound set: SQL text is built only from the planner's
 * own pieces. */
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
                                * time (an id or property wildcard, a property regex or (of ...)), a
                                * lone prefix or a word read from the index's pages (MAILDEX__NO_KEYS
                                * when it cannot be) */
    GHashTable *rewrites;      /* node -> the node it stands for, made once: the words of a full-text
                                * (field (of ...)) */
    /* The planner's own planning of a subtree, handed to the handlers (and or-sets.c) that read a
     * subquery's matches at plan time, (field (of ...)): `SELECT ... AS k` streaming the keys of n's
     * matches, its values bound as parameters of p; NULL on error (on p). Set by plan.c, so that
     * nothing below it names it. */
    const char *(*stream)(struct maildex__planner *p, const struct maildex__qnode *n);
};

/* ---- the handlers ----------------------------------------------------------------------------- */

/* The parts of an AND that one handler answers together: the full-text ones are one FTS5 MATCH
 * expression, whose cursor reads each word once per statement, instead of a cursor per part. c[0..nc)
 * are the AND's children and take[i] selects the group's (a NOT's child is negated in it). */
struct maildex__group_ops {
    /* Whether n (a part of an AND, or the child of a NOT part) joins the group. It may read n's
     * matches now: a lone prefix read from the index's pages is a part of its own. */
    bool (*joins)(struct maildex__planner *p, const struct maildex__qnode *n);
    const char *(*probe)(struct maildex__planner *p, struct maildex__qnode *const *c, size_t nc,
                         const bool *take, const char *a);
    /* As a handler's drive; *bulk is set when the stream reads every match before its first row
     * comes out (a prefix, whose words FTS5 merges whole). */
    bool (*drive)(struct maildex__planner *p, struct maildex__qnode *const *c, size_t nc, const bool *take,
                  struct maildex__drive *d, bool *bulk);
    int64_t (*estimate)(struct maildex__planner *p, struct maildex__qnode *const *c, size_t nc,
                        const bool *take);
};

/* The handler of a query field: of a term, and of a node that one field answers whole (an OR of its
 * terms: `tag:a tag:b ...` is one set; a full-text AND, OR or XOR: one MATCH expression; a
 * (field (of ...))). handlers.h finds it. An AND is always the planner's to compose (its full-text
 * parts as one group, see group): its handler gives only its estimate and the group it joins under
 * another AND. Every entry may be NULL but probe, which only a handler with a rewrite lacks.
 *   probe: an SQL expression over the messages row aliased a, true when the message matches n.
 *   drive: fills d with arms streaming n's matches, or returns false when n cannot drive (it is then
 *     probed); NULL: never drives.
 *   estimate: n's matches, exact or counted up to cap (MAILDEX__EST_MANY when the count reached it,
 *     or n cannot be counted); cheap estimates (stored counts) ignore cap; NULL: MAILDEX__EST_MANY.
 *   rewrite: the node n stands for, which the planner plans in its place (a full-text
 *     (field (of ...)) is the OR of the words its messages hold there), made once; NULL on error (on
 *     p). A handler with a rewrite has no other entry.
 *   read_keys: n's matches read whole now, when the query reads every match anyway
 *     (opts->every_match) and the handler reads them cheaper than a stream would (a free-text word
 *     from the index's pages); NULL to stream n as usual.
 *   group: the group of an AND's parts that n joins when group->joins says so; NULL: n is a part of
 *     its own. */
struct maildex__field_ops {
    const char *(*probe)(struct maildex__planner *p, const struct maildex__qnode *n, const char *a);
    bool (*drive)(struct maildex__planner *p, const struct maildex__qnode *n,
                  struct maildex__drive *d);
    int64_t (*estimate)(struct maildex__planner *p, const struct maildex__qnode *n, int64_t cap);
    const struct maildex__qnode *(*rewrite)(struct maildex__planner *p, const struct maildex__qnode *n);
    const struct maildex__set *(*read_keys)(struct maildex__planner *p, const struct maildex__qnode *n);
    const struct maildex__group_ops *group;
    bool cheap_estimate; /* estimate reads a stored count, never the matches */
};

/* ---- the building blocks (planner.c) ------------------------------------------------------------ */

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

/* Records a syntax error at n's position (the first error wins). */
void maildex__plan_syntax_error(struct maildex__planner *p, const struct maildex__qnode *n,
                                const char *msg);

/* The integers of column 0 of sql, run with the plan's values so far, as a set; NULL on error (on p). */
struct maildex__set *maildex__plan_read_keys(struct maildex__planner *p, const char *sql);

/* A value bound to a plan-time read: text, or (text NULL) an integer. */
struct maildex__bound {
    const char *text;
    int64_t num;
};

/* The integers of column 0 of sql with v[0..n) bound to ?1, ?2 ..., as a set; NULL on error (on p). */
struct maildex__set *maildex__plan_read_ints(struct maildex__planner *p, const char *sql,
                                             const struct maildex__bound *v, int n);

/* column >= prefix [AND column < its end]: the rows whose column starts with prefix (bytewise, as
 * SQLite's BINARY collation compares), through column's index; the values are bound from v[*nv] on,
 * *nv counting them (at most two). */
const char *maildex__plan_prefix_range(struct maildex__planner *p, const char *column, const char *prefix,
                                       struct maildex__bound *v, int *nv);

/* Whether n's value is a regex that compiles; records the syntax error at n when not. */
bool maildex__plan_regex_ok(struct maildex__planner *p, const struct maildex__qnode *n);

/* The probe of a message being among set's keys (a's id), "0" when set is NULL; and the one arm
 * streaming set's keys in key order from the set's own rows (maildex_set yields them sorted), false
 * when set is NULL. */
const char *maildex__plan_in_keys(struct maildex__planner *p, const struct maildex__set *set, const char *a);
bool maildex__plan_drive_keys(struct maildex__planner *p, struct maildex__drive *d,
                              const struct maildex__set *set, enum maildex__driver kind);
/* The drive and estimate of a term whose matches are set, read at plan time: as drive_keys, but no
 * message at all when the set is empty; its size, MAILDEX__EST_MANY when set is NULL. */
bool maildex__plan_drive_key_set(struct maildex__planner *p, struct maildex__drive *d,
                                 const struct maildex__set *set, enum maildex__driver kind);
int64_t maildex__plan_key_set_size(const struct maildex__set *set);

/* The probe of a message being in one of set's threads (a's thread), "0" when set is NULL; and the
 * drive of those threads' messages (maildex__plan_drive_set over the thread index), false when set is
 * NULL. */
const char *maildex__plan_in_threads(struct maildex__planner *p, const struct maildex__set *set, const char *a);
bool maildex__plan_drive_threads(struct maildex__planner *p, struct maildex__drive *d, const struct maildex__set *set);

/* Marks, in p->key_sets, a node whose matches cannot be read at plan time (FTS5 must answer it): an
 * address no set has. */
extern const char maildex__no_keys_mark;
#define MAILDEX__NO_KEYS ((const struct maildex__set *) &maildex__no_keys_mark)

/* Whether n is a term whose matches the planner already holds as a set (p->key_sets), so that
 * streaming it costs no more than any set. */
bool maildex__plan_keys_held(struct maildex__planner *p, const struct maildex__qnode *n);

/* Whether n holds a prefix term (`lun*`, or any (starts-with ...)): FTS5 merges a prefix's whole
 * doclist whenever it starts it. */
bool maildex__plan_has_prefix(const struct maildex__qnode *n);

#endif
