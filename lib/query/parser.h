/* SPDX-License-Identifier: GPL-3.0-or-later */
/* parser.h: what the query parser's files share, and nobody else sees. lex.c cuts the text
 * into tokens; term.c makes the nodes of the tokens that carry values; expand.c parses the
 * texts nested in a query (thread:{}, query:NAME, from:/subject:"(...)"); parse.c holds the grammar,
 * the parse's errors and the tree's nodes; recover.c decides how a malformed query fails;
 * sexp.c reads the S-expression syntax into the same nodes (and the infix sexp:"..." with it).
 * Nothing here knows SQL or the store; lib/query/ast.h is the parser's interface to the rest of lib/. */
#ifndef MAILDEX_QUERY_PARSER_H
#define MAILDEX_QUERY_PARSER_H

#include "ast.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* No position: a restart not noted, a node position not fixed. */
#define MAILDEX__NO_POS SIZE_MAX

/* How Xapian reads a prefix's values: probabilistic (words), boolean (one term), raw (a range text),
 * thread: (a thread id or {subquery}), query: (a named query) and sexp: (an S-expression query). */
enum maildex__qprefix_kind {
    MAILDEX__QP_PROB,
    MAILDEX__QP_BOOL,
    MAILDEX__QP_RAW,
    MAILDEX__QP_THREAD,
    MAILDEX__QP_QUERY,
    MAILDEX__QP_SEXP,
};

/* How many prefixes notmuch knows (the table in lex.c). */
#define MAILDEX__QUERY_NPREFIXES 18

/* A prefix notmuch knows. */
struct maildex__qprefix {
    const char *name;
    enum maildex__qfield field;
    enum maildex__qprefix_kind kind;
    bool grouped;   /* boolean or field-processor prefix: same-name terms in a run are ORed */
    bool regex;     /* accepts /regex/ values */
    bool paren;     /* accepts prefix:( ... ) */
    bool processor; /* from:/subject: field processor: `"bob*"` is still a wildcard */
};

enum maildex__qtoken_kind {
    MAILDEX__QT_EOF,
    MAILDEX__QT_LPAREN,
    MAILDEX__QT_RPAREN,
    MAILDEX__QT_AND,
    MAILDEX__QT_OR,
    MAILDEX__QT_XOR,
    MAILDEX__QT_NOT,
    /* a '+' or '-' with no term after it (before ')', an operator or the end): Xapian's LOVE or HATE token
     * that its grammar then rejects */
    MAILDEX__QT_SIGN,
    MAILDEX__QT_WORD,
    MAILDEX__QT_PHRASE,
    MAILDEX__QT_PREFIXED, /* prefix:value */
    MAILDEX__QT_GROUP,    /* prefix:( */
};

struct maildex__qtoken {
    enum maildex__qtoken_kind kind;
    size_t pos, end;                       /* byte range in the parser's text */
    char sign;                             /* '+', '-' or 0 */
    const struct maildex__qprefix *prefix; /* PREFIXED, GROUP */
    char *value;                           /* WORD, PHRASE, PREFIXED (talloc'd) */
    size_t value_pos;                      /* where the value starts in the text */
    size_t brace_len; /* unquoted thread:{...}: value is NULL, the braces are text[value_pos, +len) */
    bool quoted;
    bool unterminated; /* quoted, and the closing quote is missing */
    bool detached;     /* signed, with punctuation Xapian drops between the sign and the token */
};

/* State shared by a parse and the nested parses of its thread:{} and query: terms. */
struct maildex__qshared {
    void *ctx; /* everything is allocated here; the result is moved out at the end */
    const struct maildex__query_options *opts;
    struct maildex__qprefix *user_prefixes; /* opts->user_fields as prefixes, made on first use */
    size_t nuser_prefixes;
    bool failed, nomem;
    bool retry; /* the failure is one Xapian calls "parse error": parse the text again in plain mode */
    size_t restart; /* MAILDEX__NO_POS, or where Xapian parses again (maildex__qrecover_note_restart) */
    int restart_groups; /* groups open at restart */
    char *error;
    int depth;
    const char *expanding[MAILDEX__QUERY_MAX_DEPTH + 1]; /* named queries being expanded, outermost first */
    int nexpanding;
    size_t expansion; /* elements saved sexp queries expanded into so far (MAILDEX__SEXP_MAX_EXPANSION) */
};

struct maildex__qparser {
    struct maildex__qshared *sh;
    const char *text;
    size_t len, cur;
    size_t base;      /* offset of text in the text error positions refer to */
    size_t pos_fixed; /* MAILDEX__NO_POS, or the position every node gets (inside a query: expansion) */
    const struct maildex__qprefix *group; /* default prefix inside prefix:( ... ) */
    bool stem;        /* inside a quoted from:/subject: query value: words given the group prefix are stemmed */
    bool plain;       /* Xapian's second reading: no operators, groups, phrases, signs or wildcards */
    int open_groups;  /* groups open at the current token */
    bool stop_known;  /* range_stop: from any position in [stop_from, stop_at] the scan stops at stop_at */
    size_t stop_from, stop_at;
    bool open_quote;  /* a to:"..., body:"... runs to the end: Xapian fails once it has read everything */
    bool have_tok;
    struct maildex__qtoken tok;
};

/* A growing array of nodes. */
struct maildex__qvec {
    struct maildex__qnode **v;
    size_t n, cap;
};

/* ---- characters and operators ------------------------------------------------------------------- */

static inline bool maildex__qis_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* A byte of a word: ASCII letters and digits, '_', and any byte of a UTF-8 sequence. */
static inline bool maildex__qis_word_byte(char c)
{
    unsigned char u = (unsigned char) c;

    return (u >= '0' && u <= '9') || (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || u == '_' || u >= 0x80;
}

/* Punctuation that joins words into a phrase (Xapian's phrase generators, plus the apostrophe). */
static inline bool maildex__qis_joiner(char c)
{
    return c != '\0' && strchr(".-/:\\@'", c) != NULL;
}

/* The length of the double quote at i: 1 for '"', 3 for the curly quotes U+201C and U+201D, which Xapian
 * takes for quotes too, and 0 for anything else. */
static inline size_t maildex__qdquote_len(const char *s, size_t i, size_t len)
{
    if (s[i] == '"')
        return 1;
    if (i + 2 < len && s[i] == '\xe2' && s[i + 1] == '\x80' && (s[i + 2] == '\x9c' || s[i + 2] == '\x9d'))
        return 3;
    return 0;
}

/* A byte of a word in the text, where a curly quote is punctuation. */
static inline bool maildex__qword_at(const char *s, size_t i, size_t len)
{
    return maildex__qis_word_byte(s[i]) && !maildex__qdquote_len(s, i, len);
}

/* The precedence levels of the grammar, loosest first: an expression of one level is operands of the
 * next joined by its operators (`and` and `not` share one), and the last is [not] run. */
enum maildex__qlevel { MAILDEX__QLEVEL_OR = 1, MAILDEX__QLEVEL_XOR, MAILDEX__QLEVEL_AND, MAILDEX__QLEVEL_UNARY };

/* The level of an operator (and, or, xor, not). */
static inline enum maildex__qlevel maildex__qprecedence(enum maildex__qtoken_kind k)
{
    return k == MAILDEX__QT_OR ? MAILDEX__QLEVEL_OR : k == MAILDEX__QT_XOR ? MAILDEX__QLEVEL_XOR : MAILDEX__QLEVEL_AND;
}

/* and, or, xor, not */
static inline bool maildex__qis_operator(enum maildex__qtoken_kind k)
{
    return k == MAILDEX__QT_AND || k == MAILDEX__QT_OR || k == MAILDEX__QT_XOR || k == MAILDEX__QT_NOT;
}

/* ---- lex.c -------------------------------------------------------------------------------- */

/* One side of a legacy range: digits with an optional sign and fraction (Xapian reads the sides with
 * strtod). */
bool maildex__qlex_read_number(const char *s, size_t n, double *out);

/* Xapian tries the word at every step of its lexer (a token or a punctuation mark, outside quotes) as a
 * range first: the text up to whitespace or '(' holding `..`, the upper side running to whitespace or
 * ')'. Returns 0 when it is none (or `..` alone, which Xapian drops), 1 for a range notmuch's
 * processors take (date:, lastmod:, numbers: the legacy range of seconds), -1 for one they do not
 * ("Unknown range operation"); *pending (if not NULL) is then set if the lower side holds ':' after its
 * first byte, an error Xapian forgets if the same lexer step reaches a boolean-prefixed term (`tag:a..b`
 * is the tag "a..b"). */
int maildex__qlex_range_at(struct maildex__qparser *p, size_t i, bool *pending);

/* MAILDEX__QT_AND, _OR, _XOR or _NOT if s[0, n) is that operator (in any case), else MAILDEX__QT_WORD. */
enum maildex__qtoken_kind maildex__qlex_operator_kind(const char *s, size_t n);

/* A term at i with a prefix notmuch registers as boolean (all grouped ones but lastmod:, a range), which
 * Xapian reads as a boolean filter; NULL if there is none. */
const struct maildex__qprefix *maildex__qlex_boolean_term_at(const struct maildex__qparser *p, size_t i);

/* The next token, lexed once (a token that fails to lex fails the parse and reads as MAILDEX__QT_EOF);
 * advance moves past it. */
const struct maildex__qtoken *maildex__qlex_peek(struct maildex__qparser *p);
void maildex__qlex_advance(struct maildex__qparser *p);

/* ---- parse.c: errors ---------------------------------------------------------------------- */

/* Out of memory: the parse fails with MAILDEX__QUERY_NOMEM. */
void maildex__qparse_nomem(struct maildex__qparser *p);

/* A syntax error at pos in the parser's text. */
__attribute__((format(printf, 3, 4))) void maildex__qparse_fail(struct maildex__qparser *p, size_t pos,
                                                                const char *fmt, ...);

/* A syntax error Xapian's grammar reports as "parse error", which makes QueryParser parse the text again
 * in plain mode (maildex__qparse_text). The message is only seen if that fails too. */
__attribute__((format(printf, 3, 4))) void maildex__qparse_fail_retry(struct maildex__qparser *p, size_t pos,
                                                                      const char *fmt, ...);

/* A well-formed query that cannot be run (unknown or cyclic named query, unsupported prefix). */
__attribute__((format(printf, 4, 5))) void maildex__qparse_fail_query(struct maildex__qparser *p, size_t abs_pos,
                                                                      const char *what, const char *fmt, ...);

/* One nesting level deeper (a group or a nested parse at pos): false, with a failure, beyond
 * MAILDEX__QUERY_MAX_DEPTH. leave comes back up. */
bool maildex__qparse_enter(struct maildex__qparser *p, size_t pos);
void maildex__qparse_leave(struct maildex__qparser *p);

/* ---- parse.c: nodes ----------------------------------------------------------------------- */

/* The position in the outermost text of pos in the parser's text (the query: term's, inside an expansion). */
size_t maildex__qparse_node_pos(const struct maildex__qparser *p, size_t pos);

/* A node of kind at pos in the parser's text (or at the parser's fixed position). */
struct maildex__qnode *maildex__qparse_node(struct maildex__qparser *p, enum maildex__qkind kind, size_t pos);

/* A node of kind (NOT or THREAD) whose one child is child; pos as for maildex__qparse_node. */
struct maildex__qnode *maildex__qparse_parent(struct maildex__qparser *p, enum maildex__qkind kind, size_t pos,
                                              struct maildex__qnode *child);

/* Appends n to v, growing it on the parse's context. */
bool maildex__qparse_push(struct maildex__qparser *p, struct maildex__qvec *v, struct maildex__qnode *n);

/* Combines v's nodes with kind (AND, OR or XOR), flattening children of the same kind and dropping `*`
 * where it changes nothing, so `a and (b and c)` and `* tag:x` come out flat. One node is returned as is. */
struct maildex__qnode *maildex__qparse_combine(struct maildex__qparser *p, enum maildex__qkind kind,
                                               struct maildex__qvec *v);

/* Moves a finished tree out of the scratch context onto parent: each node under its parent. */
void maildex__qparse_adopt(void *parent, struct maildex__qnode *n);

/* One whole parse of text by parse (the infix or the S-expression grammar), restart as the shared
 * state starts it: the tree moved under ctx on success, the error message on failure. Returns a
 * MAILDEX__QUERY_* code (parse.c). */
int maildex__qparse_run(void *ctx, const char *text, const struct maildex__query_options *opts,
                        size_t restart, struct maildex__qnode *(*parse)(struct maildex__qparser *),
                        struct maildex__qnode **out, char **error);

/* ---- parse.c: the grammar ----------------------------------------------------------------- */

/* Parses the parser's whole text (a query, or a nested query's text) into a tree; NULL on failure. */
struct maildex__qnode *maildex__qparse_text(struct maildex__qparser *p);

/* An expression of level: operands of the next level joined by level's operators (`a not b` is a and not
 * b), or at MAILDEX__QLEVEL_UNARY [not] run. after as for parse_seq. */
struct maildex__qnode *maildex__qparse_level(struct maildex__qparser *p, enum maildex__qlevel level,
                                             const struct maildex__qtoken *after, bool *empty);

/* ---- term.c ------------------------------------------------------------------------------- */

/* A TERM node; value is copied under it. */
struct maildex__qnode *maildex__qterm_new(struct maildex__qparser *p, enum maildex__qfield field, const char *value,
                                          unsigned flags, size_t pos);

/* The node for `prefix:value` (or a value inherited from a prefix:( group); NULL with no failure when the
 * value yields nothing. */
struct maildex__qnode *maildex__qterm_prefixed(struct maildex__qparser *p, const struct maildex__qtoken *t);

/* A word or phrase inside prefix:( ... ), which gets the group's prefix. Punctuation alone yields
 * nothing there either. */
struct maildex__qnode *maildex__qterm_group(struct maildex__qparser *p, struct maildex__qtoken *t);

/* A bare word: a-b-c, a.b.c, alice@example.org stay one phrase term; other punctuation separates words
 * (`hello,world` is two terms) and a word of punctuation only (a stray `'`) yields nothing. In plain
 * mode a trailing `*` is punctuation, which keeps the word before it from being stemmed. */
struct maildex__qnode *maildex__qterm_free_word(struct maildex__qparser *p, const struct maildex__qtoken *t);

/* A "phrase" with no prefix. */
struct maildex__qnode *maildex__qterm_free_phrase(struct maildex__qparser *p, const struct maildex__qtoken *t);

/* ---- expand.c ----------------------------------------------------------------------------- */

/* thread:{subquery} (a THREAD node over the subquery's tree), or thread:ID (a term). */
struct maildex__qnode *maildex__qexpand_thread(struct maildex__qparser *p, const struct maildex__qtoken *t);

/* query:NAME: the tree of the named query's text, or an error for an unknown or cyclic one. */
struct maildex__qnode *maildex__qexpand_named(struct maildex__qparser *p, const struct maildex__qtoken *t);

/* A quoted from:/subject: value in parentheses, parsed as a query with that default prefix. */
struct maildex__qnode *maildex__qexpand_paren(struct maildex__qparser *p, const struct maildex__qtoken *t);

/* text (NUL-terminated: a sexp query's `(infix "text")`) as an infix query of its own, one level deeper,
 * its nodes at pos in p's text. */
struct maildex__qnode *maildex__qexpand_infix(struct maildex__qparser *p, const char *text, size_t pos);

/* ---- sexp.c ------------------------------------------------------------------------------- */

/* sexp:"..." (and sexp:VALUE): the value as an S-expression query, one level deeper; its errors are
 * notmuch's message, said at the term. */
struct maildex__qnode *maildex__qexpand_sexp(struct maildex__qparser *p, const struct maildex__qtoken *t);

/* ---- recover.c ---------------------------------------------------------------------------- */

/* Xapian (1.4) forgets a syntax error raised while it reads an operator or a sign if the same lexer step goes
 * on (through more operators and signs) to a term with a prefix notmuch registers as boolean: its lexer
 * clears the error before such a term, meaning to clear a failed range, and its grammar has been reset by the
 * error. The query starts again after the token that failed, everything before is lost, and notmuch answers
 * `a or or tag:x`, `tag:y or -tag:x` and `-tag:y and tag:x` with tag:x. Notes where maildex__qparse_text is
 * to parse again, if so: from is the end of the failed token (a sign right there is dropped, as the reset
 * grammar rejects it in turn). Call before failing. */
void maildex__qrecover_note_restart(struct maildex__qparser *p, size_t from);

/* op has no right operand. When that is because another operator follows, Xapian finds out while reading that
 * operator if it binds no tighter (`a or or`, `a and or`, `not not`), and may restart after it
 * (maildex__qrecover_note_restart); one that binds tighter has no left operand (fail_missing_left). */
void maildex__qrecover_fail_after(struct maildex__qparser *p, const struct maildex__qtoken *op);

/* A sign with no term to take it (`a -)`, `-not a`, `-'`): Xapian's grammar has LOVE or HATE with
 * nothing after it, a parse error, found at the next token (and a restart after it if it is an
 * operator). A `-` whose term is missing right after `and` is reported as Xapian reports it, as `and`
 * missing its operand. */
void maildex__qrecover_fail_sign(struct maildex__qparser *p, const struct maildex__qtoken *t,
                                 const struct maildex__qtoken *after, bool excluding);

/* What an expression with no term is: an operator missing its left operand is an error; an empty group
 * (`(())`, `(*)`) or a ')' with no '(' is Xapian's parse error; at the top, nothing left after the
 * dropped punctuation (`(`, `'`, `-`) is a query that matches nothing. */
struct maildex__qnode *maildex__qrecover_empty(struct maildex__qparser *p, size_t open_pos, const char *open_what);

#endif
