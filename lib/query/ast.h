/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The notmuch 0.37 query languages as one syntax tree.
 *
 * maildex__query_parse turns query text into a talloc tree of struct maildex__qnode, applying notmuch's
 * (Xapian's) grammar: precedence OR < XOR < AND/NOT, implicit AND, same-prefix OR grouping, love/hate,
 * phrases, wildcards, regex values, thread:{...} subqueries and query:NAME expansion.
 * maildex__query_parse_sexp turns notmuch's S-expression syntax (notmuch-sexp-queries(7)) into the same
 * tree, so the planner serves both. Neither must know anything about SQL, the store or dates: values are
 * handed over raw (unquoted, unescaped) and the planner (lib/query/plan.c) decides what they mean.
 * Private to lib/; not part of the public API. */
#ifndef MAILDEX_QUERY_H
#define MAILDEX_QUERY_H

#include <stddef.h>

/* Deepest nesting (parentheses, prefix groups, thread:{} and query: expansions counted together)
 * the parser accepts. Trees are at most about this deep, so walking them recursively is safe. */
#define MAILDEX__QUERY_MAX_DEPTH 100

enum maildex__qkind {
    MAILDEX__Q_ALL,    /* every message: `*`, the empty query */
    MAILDEX__Q_NONE,   /* no message: a query of nothing but punctuation, e.g. `'`, `(`, `)`, " " */
    MAILDEX__Q_AND,    /* children >= 2 */
    MAILDEX__Q_OR,     /* children >= 2 */
    MAILDEX__Q_XOR,    /* children >= 2; odd number of children match */
    MAILDEX__Q_NOT,    /* one child; under an AND it means AND NOT, alone it means ALL AND NOT */
    MAILDEX__Q_TERM,   /* field + value + flags, no children */
    MAILDEX__Q_THREAD, /* one child: messages in threads that contain a message matching the child */
    /* field and one child: messages sharing a value of field with a message matching the child: a tag
     * (TAG), a folder (FOLDER), a property (PROPERTY), or a word of FROM, TO, SUBJECT, ATTACHMENT or
     * MIMETYPE. Only the sexp syntax makes it: `(folder (of ...))`; `(thread (of ...))` is THREAD. */
    MAILDEX__Q_SAME,
};

enum maildex__qfield {
    MAILDEX__QF_FREE,       /* unprefixed text: body, from, to, subject, attachment, mimetype (and tags, see compat §3.4) */
    MAILDEX__QF_BODY,
    MAILDEX__QF_FROM,
    MAILDEX__QF_TO,
    MAILDEX__QF_SUBJECT,
    MAILDEX__QF_ATTACHMENT,
    MAILDEX__QF_MIMETYPE,
    MAILDEX__QF_TAG,        /* tag: and is: */
    MAILDEX__QF_ID,         /* id: and mid: */
    MAILDEX__QF_THREAD,
    MAILDEX__QF_FOLDER,
    MAILDEX__QF_PATH,
    MAILDEX__QF_PROPERTY,   /* value is "key=value" */
    /* value is the raw range text, e.g. "2024-01-01..2024-02", "2w..", "@0..@99" (the legacy `..99` always
     * gets an explicit start); with QUOTED it is one date, never a range: `date:"jan 2 2024"` */
    MAILDEX__QF_DATE,
    MAILDEX__QF_LASTMOD,    /* value is the raw range text, e.g. "..3" */
    /* a user-defined field (index.header.PREFIX): words, as BODY; the node's user_field names it */
    MAILDEX__QF_USER,
};

enum maildex__qflag {
    /* The value holds more than one word (spaces or punctuation such as a-b-c, a.b.c, alice@example.org):
     * tokenize it and match the words adjacent and in order. */
    MAILDEX__QFLAG_PHRASE = 1 << 0,
    /* Trailing `*` (already removed from value): match words starting with the value (the last word of a
     * phrase). On TAG, ID, THREAD, FOLDER, PATH and PROPERTY (only from the sexp syntax's `(starts-with
     * ...)` and `*`): match the values (the "key=value" of a property, the 16 hex digits of a thread)
     * starting with value, byte for byte. An empty value on a full-text field matches any word in it. */
    MAILDEX__QFLAG_WILDCARD = 1 << 1,
    /* value is a POSIX extended regex (the /.../ delimiters removed). Only on FROM, SUBJECT, TAG, ID (mid:),
     * PATH and FOLDER, and from the sexp syntax on THREAD (the 16 hex digits) and PROPERTY ("key=value"). */
    MAILDEX__QFLAG_REGEX = 1 << 2,
    /* The value was written in double quotes, or is a word that a character keeping Xapian from stemming
     * it follows (one of ( / \ @ < > = * [ { ", e.g. `plan(` or `plan*` where `*` is no wildcard). Such
     * words are never stemmed. */
    MAILDEX__QFLAG_QUOTED = 1 << 3,
    /* The first letter is upper case; notmuch does not stem such words. Only on probabilistic fields. */
    MAILDEX__QFLAG_CAPITALISED = 1 << 4,
    /* A from: or subject: word that is stemmed all the same: a word inheriting the prefix inside a quoted
     * query value such as `subject:"(reviews or plan)"`, which notmuch parses as a query with that default
     * prefix, stemming its lower-case words. Never set together with PHRASE, WILDCARD, REGEX, QUOTED or
     * CAPITALISED. */
    MAILDEX__QFLAG_STEM = 1 << 5,
};

struct maildex__qnode {
    enum maildex__qkind kind;
    enum maildex__qfield field; /* TERM and SAME only */
    unsigned flags;             /* TERM only: enum maildex__qflag bits */
    const char *value;          /* TERM only: NUL-terminated, never NULL (may be "") */
    const char *user_field;     /* field MAILDEX__QF_USER only: the PREFIX; NULL otherwise */
    size_t pos;                 /* byte offset in the query text this node came from (for error messages) */
    size_t nchildren;
    struct maildex__qnode **children;
};

struct maildex__query_options {
    /* Returns the text of the named query `query.NAME`, or NULL if there is none. The string must stay
     * valid until maildex__query_parse returns. May be NULL: every query: term is then unknown. */
    const char *(*lookup)(void *data, const char *name);
    void *lookup_data;
    /* Returns the text of the saved sexp query `squery.NAME`, or NULL if there is none (sexp syntax only;
     * called with lookup_data, as lookup). May be NULL: no saved sexp queries. */
    const char *(*squery)(void *data, const char *name);
    /* The prefixes of the user-defined fields (index.header.PREFIX), NULL-terminated; NULL for none. */
    const char *const *user_fields;
};

enum maildex__query_status {
    MAILDEX__QUERY_OK = 0,
    MAILDEX__QUERY_BAD = 1,   /* syntax error, cyclic named query, unsupported prefix */
    MAILDEX__QUERY_NOMEM = 2,
};

/* Parses text (a NUL-terminated notmuch query) into a tree allocated on ctx. A malformed query is read
 * as notmuch reads it (doc/query-syntax.md, "Malformed queries"), so only what notmuch refuses fails.
 * Returns MAILDEX__QUERY_OK and sets *out; or MAILDEX__QUERY_BAD with *out = NULL and *error a talloc'd
 * (on ctx) message such as "syntax error at position 14: expected a term after 'and'" (byte positions
 * count from 0); or MAILDEX__QUERY_NOMEM with *out = NULL and *error NULL. opts may be NULL; error may be
 * NULL if the caller does not want the message. */
int maildex__query_parse(void *ctx, const char *text, const struct maildex__query_options *opts,
                         struct maildex__qnode **out, char **error);

/* Parses text in notmuch 0.37's S-expression syntax (notmuch-sexp-queries(7)) into the same tree, on
 * ctx: `(and (tag inbox) (subject "lunch plans"))`, `(starts-with lun)`, `(thread (of (from bob)))`,
 * `(infix "date:2024..")`, saved queries and macros from opts->squery. Returns as maildex__query_parse,
 * except that *error is notmuch's own message, without a position ("unknown prefix 'foo'", "invalid
 * s-expression: '('"), as notmuch prints it under "Syntax error in query". Nesting (lists, infix, saved
 * queries and macros counted together) is bounded by MAILDEX__QUERY_MAX_DEPTH and the expansion of saved
 * queries by MAILDEX__SEXP_MAX_EXPANSION, so no text or configuration makes it recurse or work without
 * bound. */
int maildex__query_parse_sexp(void *ctx, const char *text, const struct maildex__query_options *opts,
                              struct maildex__qnode **out, char **error);

/* The most elements saved queries and macros may expand into, in one query: `(macro (x) (and ,x ,x))`
 * applied to itself thirty times would otherwise be a billion. */
#define MAILDEX__SEXP_MAX_EXPANSION 100000

/* Renders n as an S-expression for tests and debugging, e.g.
 *     (and (or (tag "unread") (tag "inbox")) (from "bob"))
 *     (subject "lunch plans" phrase quoted)   (text "lun" wildcard)   (not (tag "spam"))
 *     (thread-of (from "carol"))   (same-folder (id "x"))   (all)   (none)
 * Field names: text body from to subject attachment mimetype tag id thread folder path property date
 * lastmod, and a user-defined field's own PREFIX. Flags follow the value in the order phrase wildcard regex quoted cap stem. In values `"` and `\` are
 * backslash-escaped and other bytes below 0x20 are written \xNN. Returns a string talloc'd on ctx, or NULL
 * when out of memory. */
char *maildex__qnode_to_string(void *ctx, const struct maildex__qnode *n);

#endif
