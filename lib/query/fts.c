/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The handlers of the full-text fields (fields.h): body, from, to, subject, attachment, mimetype,
 * the user-defined fields and free text. A term, or an AND/OR of them (NOT under an AND included),
 * becomes one FTS5 MATCH expression, built only with the tokenizer's quoting helpers
 * (sqlext/tokenizer.h) and bound as a value; it drives by streaming the FTS5 rowid, and is probed
 * through a full-text cursor (sqlext/sets.h), which reads the expression's matches once per
 * statement instead of once per candidate row. The full-text parts of an AND are one group (one
 * MATCH). A lone prefix, and a free-text word when every match is read, are read from the index's
 * pages instead (fts-prefix.h). Estimates come from the word list (fts5vocab). The sexp syntax's
 * `(to *)` (any word) and the from:/subject: regexes are probed on the stored text, and a
 * (subject (of ...)) becomes the OR of the words (exact, unstemmed) its messages hold there. Nothing
 * here knows any other field, or composes anything but full-text terms. */
#include "planner.h"
#include "fields.h"

#include "fts-prefix.h"
#include "sqlext/tokenizer.h"

#include <string.h>

static bool is_fts_field(enum maildex__qfield f)
{
    return f == MAILDEX__QF_FREE || f == MAILDEX__QF_BODY || f == MAILDEX__QF_FROM ||
           f == MAILDEX__QF_TO || f == MAILDEX__QF_SUBJECT || f == MAILDEX__QF_ATTACHMENT ||
           f == MAILDEX__QF_MIMETYPE || f == MAILDEX__QF_USER;
}

/* A word with an empty prefix (the sexp `(to *)`) is any word at all, which FTS5 cannot say (but for a
 * user-defined field, whose words all start with the field's own prefix). */
static bool is_any_word(const struct maildex__qnode *n)
{
    return (n->flags & MAILDEX__QFLAG_WILDCARD) && n->value[0] == '\0' && n->field != MAILDEX__QF_USER;
}

static bool is_fts_term(const struct maildex__qnode *n)
{
    return n->kind == MAILDEX__Q_TERM && is_fts_field(n->field) && !(n->flags & MAILDEX__QFLAG_REGEX) &&
           !is_any_word(n);
}

bool maildex__fts_able(const struct maildex__qnode *n)
{
    bool positive = false;

    if (n->kind == MAILDEX__Q_TERM)
        return is_fts_term(n);
    /* An XOR of two or three word groups is one FTS5 expression (which merges the doclists in C), but
     * not with a prefix: FTS5 would merge the prefix's whole doclist once for each time the
     * expression names it. */
    if (n->kind == MAILDEX__Q_XOR) {
        if (n->nchildren > 3 || maildex__plan_has_prefix(n))
            return false;
        for (size_t i = 0; i < n->nchildren; i++)
            if (n->children[i]->kind == MAILDEX__Q_NOT || !maildex__fts_able(n->children[i]))
                return false;
        return true;
    }
    if (n->kind == MAILDEX__Q_OR) {
        for (size_t i = 0; i < n->nchildren; i++)
            if (n->children[i]->kind == MAILDEX__Q_NOT || !maildex__fts_able(n->children[i]))
                return false;
        return true;
    }
    if (n->kind != MAILDEX__Q_AND)
        return false;
    for (size_t i = 0; i < n->nchildren; i++) {
        const struct maildex__qnode *c = n->children[i];
        if (!maildex__fts_able(c->kind == MAILDEX__Q_NOT ? c->children[0] : c))
            return false;
        positive |= c->kind != MAILDEX__Q_NOT;
    }
    return positive;
}

/* The FTS5 column filter of a field; NULL for free text, which searches every column. Column names
 * come from here, never from the user. */
static const char *fts_column(enum maildex__qfield f)
{
    switch (f) {
    case MAILDEX__QF_BODY: return "body";
    case MAILDEX__QF_FROM: return "from";
    case MAILDEX__QF_TO: return "to";
    case MAILDEX__QF_SUBJECT: return "subject";
    case MAILDEX__QF_ATTACHMENT: return "attachment";
    case MAILDEX__QF_MIMETYPE: return "mimetype";
    case MAILDEX__QF_USER: return "fields";
    default: return NULL;
    }
}

/* notmuch stems lower-case single words, except in from: and subject: (field processors) and in
 * phrases or quotes (notmuch-compat.md 3.2, 3.4); a from:/subject: word marked STEM came from a quoted
 * query value (`subject:"(reviews)"`), which the field processor parses with stemming. */
static bool fts_stemmed(const struct maildex__qnode *n)
{
    return !(n->flags & (MAILDEX__QFLAG_PHRASE | MAILDEX__QFLAG_QUOTED | MAILDEX__QFLAG_CAPITALISED |
                         MAILDEX__QFLAG_WILDCARD)) &&
           ((n->flags & MAILDEX__QFLAG_STEM) ||
            (n->field != MAILDEX__QF_FROM && n->field != MAILDEX__QF_SUBJECT));
}

/* ---- estimates ------------------------------------------------------------------------------------------ */

/* The words of a value as the index holds them: lower case, accents removed, split at anything that
 * is not a letter or digit (unicode61's rule). */
static char **index_words(const char *value)
{
    char *folded = maildex__fts_fold(value);
    char **words;

    for (char *s = folded; *s; s = g_utf8_next_char(s))
        if (!g_unichar_isalnum(g_utf8_get_char(s)))
            memset(s, ' ', (size_t) (g_utf8_next_char(s) - s));
    words = g_strsplit(folded, " ", -1);
    g_free(folded);
    return words;
}

/* A user-defined field's tokens start with this (sqlext/tokenizer.h); "" for every other field. */
static char *field_token(const struct maildex__qnode *n)
{
    if (n->field != MAILDEX__QF_USER || n->user_field == NULL)
        return g_strdup("");
    return g_strdup_printf("%c%s%c", MAILDEX_FTS_FIELD_MARKER, n->user_field, MAILDEX_FTS_FIELD_MARKER);
}

/* Documents holding word (in a user-defined field: field is its token prefix, else ""), from the word
 * list; a planning estimate only. With prefix, the documents of the first thousand words starting with
 * it. */
static int64_t word_docs(struct maildex__planner *p, const char *field, const char *bare, bool prefix,
                         bool stemmed)
{
    char *word = g_strconcat(field, bare, NULL);
    int64_t c;

    if (prefix) {
        char *hi = g_strconcat(word, "\xf4\x8f\xbf\xbf", NULL);
        sqlite3_stmt *stmt;
        c = 0;
        if ((p->st = maildex__stmt(p->db, MAILDEX__STMT_VOCAB_PREFIX_DOCS, &stmt)) == MAILDEX_STATUS_OK) {
            sqlite3_bind_text(stmt, 1, word, -1, SQLITE_STATIC);
            sqlite3_bind_text(stmt, 2, hi, -1, SQLITE_STATIC);
            if (sqlite3_step(stmt) == SQLITE_ROW)
                c = sqlite3_column_int64(stmt, 0);
            sqlite3_reset(stmt);
        }
        g_free(hi);
        g_free(word);
        return c;
    }
    c = maildex__plan_lookup(p, MAILDEX__STMT_VOCAB_DOCS, word, 0);
    if (stemmed) {
        char *stem = g_strconcat(field, "\x01", bare, NULL);
        int64_t s = maildex__plan_lookup(p, MAILDEX__STMT_VOCAB_DOCS, stem, 0);
        g_free(stem);
        c = s > c ? s : c;
    }
    g_free(word);
    return c;
}

/* Document count of the rarest word of a term's value. The word list is opened here, the first time
 * an estimate needs it (a temporary virtual table: most queries never do, and making it is a tenth
 * of a search's in-process time). */
static int64_t term_estimate(struct maildex__planner *p, const struct maildex__qnode *n)
{
    int64_t best = INT64_MAX;
    char **words, *field;

    if (p->st == MAILDEX_STATUS_OK)
        p->st = maildex__vocab_ensure(p->db);
    if (p->st != MAILDEX_STATUS_OK)
        return MAILDEX__ESTIMATE_CAP;
    words = index_words(n->value);
    field = field_token(n);
    for (char **w = words; *w && p->st == MAILDEX_STATUS_OK; w++) {
        int64_t c;
        if (**w == '\0')
            continue;
        c = word_docs(p, field, *w, (n->flags & MAILDEX__QFLAG_WILDCARD) && w[1] == NULL, fts_stemmed(n));
        best = c < best ? c : best;
    }
    if (best == INT64_MAX && *field && (n->flags & MAILDEX__QFLAG_WILDCARD))
        best = word_docs(p, field, "", true, false); /* (PREFIX *): any word of the field */
    g_free(field);
    g_strfreev(words);
    return best == INT64_MAX ? 0 : best;
}

static int64_t conjunction_estimate(struct maildex__planner *p, struct maildex__qnode *const *c, size_t n,
                                    const bool *take);

/* An estimate of the messages an fts_able n matches, from the word list. */
static int64_t fts_estimate(struct maildex__planner *p, const struct maildex__qnode *n)
{
    int64_t e = 0;

    if (n->kind == MAILDEX__Q_TERM)
        return term_estimate(p, n);
    if (n->kind == MAILDEX__Q_AND) {
        bool *take = talloc_array(p->ctx, bool, n->nchildren);
        for (size_t i = 0; take && i < n->nchildren; i++)
            take[i] = true;
        return take ? conjunction_estimate(p, n->children, n->nchildren, take) : 0;
    }
    for (size_t i = 0; i < n->nchildren; i++) /* OR, XOR */
        e += fts_estimate(p, n->children[i]);
    return e;
}

/* The estimate of the conjunction of the children take[] selects: its rarest positive part. */
static int64_t conjunction_estimate(struct maildex__planner *p, struct maildex__qnode *const *c, size_t n,
                                    const bool *take)
{
    int64_t best = INT64_MAX;

    for (size_t i = 0; i < n; i++)
        if (take[i] && c[i]->kind != MAILDEX__Q_NOT) {
            int64_t e = fts_estimate(p, c[i]);
            best = e < best ? e : best;
        }
    return best == INT64_MAX ? 0 : best;
}

/* ---- expressions ------------------------------------------------------------------------------------------ */

static void append_expression(struct maildex__planner *p, GString *s, const struct maildex__qnode *n,
                              bool *prefix);

static void append_leaf(struct maildex__planner *p, GString *s, const struct maildex__qnode *n,
                        bool *prefix)
{
    const char *lit, *col = fts_column(n->field);

    if (n->field == MAILDEX__QF_USER) {
        enum maildex__fts_match_kind kind = (n->flags & MAILDEX__QFLAG_WILDCARD) ? MAILDEX_FTS_PREFIX
                                            : fts_stemmed(n)                     ? MAILDEX_FTS_STEMMED
                                                                                 : MAILDEX_FTS_EXACT;
        lit = maildex__fts_match_field(p->ctx, n->user_field ? n->user_field : "", n->value, kind);
        *prefix |= kind == MAILDEX_FTS_PREFIX;
    } else if (n->flags & MAILDEX__QFLAG_WILDCARD) {
        lit = maildex__fts_match_prefix(p->ctx, n->value);
        *prefix = true;
    } else if (fts_stemmed(n)) {
        lit = maildex__fts_match_stemmed(p->ctx, n->value);
    } else {
        lit = maildex__fts_match_quote(p->ctx, n->value);
    }
    if (lit == NULL) {
        p->st = MAILDEX_STATUS_NO_MEMORY;
        return;
    }
    if (col)
        g_string_append_printf(s, "{%s} : ", col);
    g_string_append(s, lit);
}

/* FTS5 has only binary NOT, and refuses expressions nested deeper than 256: an AND is "(P1) AND
 * (P2) ..." and its negated pieces one "NOT ((N1) OR (N2) ...)". take[i] says which children belong. */
static void append_conjunction(struct maildex__planner *p, GString *s, struct maildex__qnode *const *c,
                               size_t n, const bool *take, bool *prefix)
{
    bool first = true;

    for (size_t i = 0; i < n; i++) {
        if (!take[i] || c[i]->kind == MAILDEX__Q_NOT)
            continue;
        g_string_append(s, first ? "(" : " AND (");
        append_expression(p, s, c[i], prefix);
        g_string_append_c(s, ')');
        first = false;
    }
    first = true;
    for (size_t i = 0; i < n; i++) {
        if (!take[i] || c[i]->kind != MAILDEX__Q_NOT)
            continue;
        g_string_append(s, first ? " NOT ((" : " OR (");
        append_expression(p, s, c[i]->children[0], prefix);
        g_string_append_c(s, ')');
        first = false;
    }
    if (!first)
        g_string_append_c(s, ')');
}

/* "(A)" into s. */
static void append_group(struct maildex__planner *p, GString *s, const struct maildex__qnode *n,
                         bool *prefix)
{
    g_string_append_c(s, '(');
    append_expression(p, s, n, prefix);
    g_string_append_c(s, ')');
}

/* XOR of two or three groups: an odd number of them. Two: "(A NOT B) OR (B NOT A)"; three: exactly
 * one of them, or all three. */
static void append_xor(struct maildex__planner *p, GString *s, struct maildex__qnode *const *c, size_t n,
                       bool *prefix)
{
    for (size_t i = 0; i < n; i++) {
        g_string_append(s, i ? " OR ((" : "((");
        append_expression(p, s, c[i], prefix);
        g_string_append(s, ") NOT (");
        for (size_t j = 0, k = 0; j < n; j++)
            if (j != i) {
                if (k++)
                    g_string_append(s, " OR ");
                append_group(p, s, c[j], prefix);
            }
        g_string_append(s, "))");
    }
    if (n == 3) {
        g_string_append(s, " OR (");
        for (size_t i = 0; i < n; i++) {
            if (i)
                g_string_append(s, " AND ");
            append_group(p, s, c[i], prefix);
        }
        g_string_append_c(s, ')');
    }
}

static void append_expression(struct maildex__planner *p, GString *s, const struct maildex__qnode *n,
                              bool *prefix)
{
    if (n->kind == MAILDEX__Q_XOR) {
        append_xor(p, s, n->children, n->nchildren, prefix);
    } else if (n->kind == MAILDEX__Q_TERM) {
        append_leaf(p, s, n, prefix);
    } else if (n->kind == MAILDEX__Q_AND) {
        bool *take = talloc_array(p->ctx, bool, n->nchildren);
        for (size_t i = 0; take && i < n->nchildren; i++)
            take[i] = true;
        if (take == NULL)
            p->st = MAILDEX_STATUS_NO_MEMORY;
        else
            append_conjunction(p, s, n->children, n->nchildren, take, prefix);
    } else { /* OR */
        for (size_t i = 0; i < n->nchildren; i++) {
            g_string_append(s, i ? " OR (" : "(");
            append_expression(p, s, n->children[i], prefix);
            g_string_append_c(s, ')');
        }
    }
}

static const char *finish(struct maildex__planner *p, GString *s)
{
    char *out = talloc_strdup(p->ctx, s->str);

    g_string_free(s, TRUE);
    if (out == NULL)
        p->st = MAILDEX_STATUS_NO_MEMORY;
    return out ? out : "";
}

/* The MATCH expression of an fts_able n; *prefix is set when it holds a prefix term. */
static const char *expression(struct maildex__planner *p, const struct maildex__qnode *n, bool *prefix)
{
    GString *s = g_string_new(NULL);

    *prefix = false;
    append_expression(p, s, n, prefix);
    return finish(p, s);
}

/* The MATCH expression of the children of an AND that take[] selects. */
static const char *conjunction(struct maildex__planner *p, struct maildex__qnode *const *c, size_t n,
                               const bool *take, bool *prefix)
{
    GString *s = g_string_new(NULL);

    *prefix = false;
    append_conjunction(p, s, c, n, take, prefix);
    return finish(p, s);
}

/* ---- probe and drive ------------------------------------------------------------------------------------ */

/* Probe and drive for a MATCH expression. */
static const char *match_probe(struct maildex__planner *p, const char *m_expression, bool prefix, const char *a)
{
    struct maildex__match *m = maildex__match_new(p->ctx, m_expression, prefix, !p->opts->oldest_first);

    if (m == NULL) {
        p->st = MAILDEX_STATUS_NO_MEMORY;
        return "0";
    }
    return maildex__plan_fmt(p, "maildex_match(?%d, %s.id)", maildex__plan_match(p, m), a);
}

static bool match_drive(struct maildex__planner *p, const char *m_expression, struct maildex__drive *d)
{
    return maildex__plan_arm(p, d, MAILDEX__DRIVER_FTS, "fts d CROSS JOIN messages m ON m.id = d.rowid",
                             "d.rowid",
                             maildex__plan_fmt(p, "d.fts MATCH ?%d", maildex__plan_text(p, m_expression)),
                             false);
}

/* ---- the handler of a full-text term ---------------------------------------------------------------------- */

/* A lone prefix's matches, read word by word once per query (fts-prefix.h): FTS5 would merge all its
 * words' positions before the first row whether the prefix drives or is probed, so reading its keys
 * at once never costs more. NULL when FTS5 must answer it. */
static const struct maildex__set *prefix_set(struct maildex__planner *p, const struct maildex__qnode *n)
{
    const struct maildex__set *set;

    if (!(n->flags & MAILDEX__QFLAG_WILDCARD) || n->field == MAILDEX__QF_USER || p->st != MAILDEX_STATUS_OK)
        return NULL;
    if ((set = g_hash_table_lookup(p->key_sets, n)) == NULL) {
        set = maildex__fts_prefix_keys(p->ctx, p->db, fts_column(n->field), n->value);
        g_hash_table_insert(p->key_sets, (gpointer) n, (gpointer) (set ? set : MAILDEX__NO_KEYS));
    }
    return set == MAILDEX__NO_KEYS ? NULL : set;
}

/* A free-text word's matches read from the index's pages (fts-prefix.h) once per query, when the
 * query's every match is read anyway (opts->every_match); NULL for anything else, or when FTS5 must
 * answer it. */
static const struct maildex__set *word_set(struct maildex__planner *p, const struct maildex__qnode *n)
{
    const struct maildex__set *set;
    bool prefix;

    if (!p->opts->every_match || n->kind != MAILDEX__Q_TERM || !is_fts_term(n) ||
        (n->flags & MAILDEX__QFLAG_WILDCARD) || fts_column(n->field) != NULL || p->st != MAILDEX_STATUS_OK)
        return NULL;
    if ((set = g_hash_table_lookup(p->key_sets, n)) == NULL) {
        set = maildex__fts_term_keys(p->ctx, p->db, expression(p, n, &prefix));
        g_hash_table_insert(p->key_sets, (gpointer) n, (gpointer) (set ? set : MAILDEX__NO_KEYS));
    }
    return set == MAILDEX__NO_KEYS ? NULL : set;
}

/* Whether n is a lone prefix whose keys the planner reads from the index's pages (fts-prefix.h),
 * reading them now: it is then a part of its own in an AND, not a piece of the AND's FTS5
 * expression, where FTS5 would merge its words' positions. */
static bool lone_prefix(struct maildex__planner *p, const struct maildex__qnode *n)
{
    return n->kind == MAILDEX__Q_TERM && is_fts_term(n) && prefix_set(p, n) != NULL;
}

static const char *term_probe(struct maildex__planner *p, const struct maildex__qnode *n, const char *a)
{
    const struct maildex__set *set = prefix_set(p, n);
    bool prefix;
    const char *m;

    if (set)
        return maildex__plan_in_keys(p, set, a);
    m = expression(p, n, &prefix);
    return match_probe(p, m, prefix, a);
}

static bool term_drive(struct maildex__planner *p, const struct maildex__qnode *n, struct maildex__drive *d)
{
    const struct maildex__set *set = prefix_set(p, n);
    bool prefix;

    if (set)
        return maildex__plan_drive_key_set(p, d, set, MAILDEX__DRIVER_FTS);
    return match_drive(p, expression(p, n, &prefix), d);
}

static int64_t term_estimate_capped(struct maildex__planner *p, const struct maildex__qnode *n,
                                    int64_t cap)
{
    const struct maildex__set *set = prefix_set(p, n);

    (void) cap;
    return set ? (int64_t) maildex__set_size(set) : term_estimate(p, n);
}

/* ---- any word of a field, and (field (of ...)) ------------------------------------------------------------- */

/* A letter or digit, as the tokenizer's words are made of (in the locale's character set, as regexes are
 * matched). */
#define ANY_WORD_CHAR "[[:alnum:]]"

static const char *any_word_probe(struct maildex__planner *p, const struct maildex__qnode *n, const char *a)
{
    return maildex__plan_fmt(p, "EXISTS (SELECT 1 FROM fts_text t WHERE t.id = %s.id AND regexp(?%d, t.\"%s\"))",
                             a, maildex__plan_text(p, ANY_WORD_CHAR), fts_column(n->field));
}

/* The words of column in the messages stream selects (run with the plan's values so far), each once, as
 * exact terms of field under an OR. */
static struct maildex__qnode *words_of(struct maildex__planner *p, enum maildex__qfield field, const char *stream)
{
    struct maildex__plan so_far = {.binds = (struct maildex__bind *) p->binds->data, .nbinds = p->binds->len};
    GHashTable *seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    GPtrArray *terms = g_ptr_array_new();
    struct maildex__qnode *or = talloc_zero(p->ctx, struct maildex__qnode);
    sqlite3_stmt *stmt = NULL;
    const char *sql = maildex__plan_fmt(p, "SELECT t.\"%s\" FROM (%s) s CROSS JOIN fts_text t ON t.id = s.k",
                                        fts_column(field), stream);
    int rc = sqlite3_prepare_v2(p->db->sql, sql, -1, &stmt, NULL);

    if (rc != SQLITE_OK)
        p->st = maildex__sql_error(p->db, rc, "cannot plan the query");
    else if (or == NULL)
        p->st = MAILDEX_STATUS_NO_MEMORY;
    if (p->st == MAILDEX_STATUS_OK)
        p->st = maildex__plan_bind(p->db, &so_far, stmt);
    while (p->st == MAILDEX_STATUS_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        char **words = index_words((const char *) sqlite3_column_text(stmt, 0));
        for (char **w = words; *w && p->st == MAILDEX_STATUS_OK; w++) {
            struct maildex__qnode *t;
            if (**w == '\0' || g_hash_table_contains(seen, *w))
                continue;
            g_hash_table_add(seen, g_strdup(*w));
            t = talloc_zero(or, struct maildex__qnode);
            if (t == NULL || (t->value = talloc_strdup(t, *w)) == NULL) {
                p->st = MAILDEX_STATUS_NO_MEMORY;
                break;
            }
            /* the word itself: notmuch expands into the field's terms, whose stems (Z terms) carry
             * another prefix and are not among them */
            t->kind = MAILDEX__Q_TERM;
            t->field = field;
            t->flags = MAILDEX__QFLAG_QUOTED;
            g_ptr_array_add(terms, t);
        }
        g_strfreev(words);
    }
    if (p->st == MAILDEX_STATUS_OK && rc != SQLITE_DONE)
        p->st = maildex__sql_error(p->db, sqlite3_reset(stmt), "cannot plan the query");
    sqlite3_finalize(stmt);
    g_hash_table_destroy(seen);
    if (p->st == MAILDEX_STATUS_OK) {
        or->kind = terms->len == 0 ? MAILDEX__Q_NONE : MAILDEX__Q_OR;
        or->nchildren = terms->len;
        or->children = talloc_memdup(or, terms->pdata, terms->len * sizeof(void *));
        if (terms->len == 1)
            or = or->children[0];
        else if (terms->len && or->children == NULL)
            p->st = MAILDEX_STATUS_NO_MEMORY;
    }
    g_ptr_array_free(terms, TRUE);
    return p->st == MAILDEX_STATUS_OK ? or : NULL;
}

/* A full-text (field (of ...)) as the OR of the words the field holds in the messages matching its
 * child, each exact (notmuch's expansion into the field's terms, which leaves out their stems; NONE
 * when there are none), made once per node; NULL on error (on p). */
static const struct maildex__qnode *same_words(struct maildex__planner *p, const struct maildex__qnode *n)
{
    struct maildex__qnode *words = g_hash_table_lookup(p->rewrites, n);
    const char *stream;

    if (words || p->st != MAILDEX_STATUS_OK)
        return words;
    if ((stream = p->stream(p, n->children[0])) == NULL)
        return NULL;
    if ((words = words_of(p, n->field, stream)) != NULL)
        g_hash_table_insert(p->rewrites, (gpointer) n, words);
    return words;
}

/* ---- from:/regex/ and subject:/regex/, on the stored text ------------------------------------------------ */

static const char *from_regex_probe(struct maildex__planner *p, const struct maildex__qnode *n, const char *a)
{
    if (!maildex__plan_regex_ok(p, n))
        return "0";
    return maildex__plan_fmt(p, "EXISTS (SELECT 1 FROM fts_text WHERE fts_text.id = %s.id AND "
                                "regexp(?%d, fts_text.\"from\"))",
                             a, maildex__plan_text(p, n->value));
}

static const char *subject_regex_probe(struct maildex__planner *p, const struct maildex__qnode *n,
                                       const char *a)
{
    if (!maildex__plan_regex_ok(p, n))
        return "0";
    return maildex__plan_fmt(p, "regexp(?%d, %s.subject)", maildex__plan_text(p, n->value), a);
}

/* ---- the group of an AND's full-text parts: one MATCH ------------------------------------------------------ */

/* A part (or a NOT part's child) joins unless it is a lone prefix read from the index's pages, which
 * is a set of its own. */
static bool group_joins(struct maildex__planner *p, const struct maildex__qnode *n)
{
    return maildex__fts_able(n) && !lone_prefix(p, n);
}

static const char *group_probe(struct maildex__planner *p, struct maildex__qnode *const *c, size_t nc,
                               const bool *take, const char *a)
{
    bool prefix;
    const char *m = conjunction(p, c, nc, take, &prefix);

    return match_probe(p, m, prefix, a);
}

static bool group_drive(struct maildex__planner *p, struct maildex__qnode *const *c, size_t nc, const bool *take,
                        struct maildex__drive *d, bool *bulk)
{
    return match_drive(p, conjunction(p, c, nc, take, bulk), d);
}

static const struct maildex__group_ops group = {group_joins, group_probe, group_drive, conjunction_estimate};

/* ---- a full-text AND, OR or XOR answered whole: one MATCH --------------------------------------------------- */

static const char *whole_probe(struct maildex__planner *p, const struct maildex__qnode *n, const char *a)
{
    bool prefix;
    const char *m = expression(p, n, &prefix);

    return match_probe(p, m, prefix, a);
}

static bool whole_drive(struct maildex__planner *p, const struct maildex__qnode *n, struct maildex__drive *d)
{
    bool prefix;

    return match_drive(p, expression(p, n, &prefix), d);
}

static int64_t whole_estimate(struct maildex__planner *p, const struct maildex__qnode *n, int64_t cap)
{
    (void) cap;
    return fts_estimate(p, n);
}

/* ---- the handlers ---------------------------------------------------------------------------------------- */

const struct maildex__field_ops maildex__fts_term_ops = {
    .probe = term_probe, .drive = term_drive, .estimate = term_estimate_capped, .read_keys = word_set,
    .group = &group, .cheap_estimate = true};
const struct maildex__field_ops maildex__fts_whole_ops = {
    .probe = whole_probe, .drive = whole_drive, .estimate = whole_estimate, .group = &group,
    .cheap_estimate = true};
const struct maildex__field_ops maildex__fts_any_word_ops = {.probe = any_word_probe, .cheap_estimate = true};
const struct maildex__field_ops maildex__fts_same_ops = {.rewrite = same_words};
const struct maildex__field_ops maildex__from_regex_ops = {.probe = from_regex_probe, .cheap_estimate = true};
const struct maildex__field_ops maildex__subject_regex_ops = {.probe = subject_regex_probe,
                                                              .cheap_estimate = true};
