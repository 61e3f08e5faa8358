/* The query planner (see query-plan.h): AST -> one streaming SQL statement plus the per-row match and
 * exclusion expressions that thread summaries need. Plan-time lookups (tag, folder, directory ids and
 * the counts that decide the driving index) run here, once per query, and cost the same at any store
 * size: sizes are estimated only where an AND has a choice to make, and a count never reads more than
 * ESTIMATE_CAP index entries. The statements built from the plan live in search.c. Nothing here
 * prints or reads config, and no user text ever reaches SQL text: values become ?NN parameters, MATCH
 * strings are built only with the tokenizer's quoting helpers. */
#include "query-plan.h"

#include "fts-tokenizer.h"
#include "parse-time.h"

#include <ctype.h>
#include <glib.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>

/* Counts used to compare drivers stop here, so planning costs the same small amount at any store size
 * (a count reads one index entry per match); two sides both above the cap are equally bad drivers.
 * A count is only made when an AND has to choose, and stops early at the best estimate so far. */
#define ESTIMATE_CAP 1000
/* drive.est of a count not made yet (see resolve()). */
#define EST_LAZY (-1)
/* An OR, a tag regex or a recursive path drives as a UNION of at most this many arms; more and it is
 * probed instead. */
#define MAX_ARMS 16
/* messages.id = date * 2^20 + tie-break (sql/0001-schema.sql). */
#define DATE_SHIFT 20

struct arm {
    const char *from;  /* FROM clause; the messages row is always aliased m */
    const char *key;   /* the ordered key column: equals m.id */
    const char *where; /* the driving constraint plus every probe */
    bool files;        /* driven from files: a message can appear once per file */
};

struct drive {
    struct arm *arms;
    size_t narms;
    int64_t est; /* matches, as far as the planner needs to know; EST_LAZY: count_from not counted yet */
    const char *kind;
    const char *count_from; /* "table WHERE ..." whose rows est counts, with ?1, ?2 ... */
    int count_k[2];         /* ... bound to these plan parameters (0: none) */
    int tag_param;          /* a single tag with no probes: its id's parameter (?N), else 0 */
};

struct planner {
    void *ctx;
    maildex_db_t *db;
    const struct maildex__plan_options *opts;
    struct maildex__bind *binds;
    size_t nbinds;
    maildex_status_t st; /* sticky: once set, every step does nothing */
    int aliases;         /* counter for nested aliases (thread subqueries) */
    int64_t now;
    bool want_est;       /* an AND is comparing drivers: terms must estimate their matches */
    int fts_probes;      /* full-text probes written so far */
    const char *excluded_ids; /* "?k, ?l": the excluded tags that exclude something, or NULL */
};

/* ---- parameters and small lookups ------------------------------------------------------------------ */

static int add_bind(struct planner *p, bool is_text, int64_t i, const char *s)
{
    struct maildex__bind *b = talloc_realloc(p->ctx, p->binds, struct maildex__bind, p->nbinds + 1);

    if (b == NULL) {
        p->st = MAILDEX_STATUS_NO_MEMORY;
        return MAILDEX__PLAN_FIRST_PARAM;
    }
    p->binds = b;
    b[p->nbinds] = (struct maildex__bind){is_text, i, is_text ? talloc_strdup(p->ctx, s) : NULL};
    return MAILDEX__PLAN_FIRST_PARAM + (int) p->nbinds++;
}

static int add_text(struct planner *p, const char *s)
{
    return add_bind(p, true, 0, s);
}

static int add_int(struct planner *p, int64_t i)
{
    return add_bind(p, false, i, NULL);
}

static char *fmt(struct planner *p, const char *f, ...) __attribute__((format(printf, 2, 3)));
static char *fmt(struct planner *p, const char *f, ...)
{
    va_list ap;
    char *s;

    va_start(ap, f);
    s = talloc_vasprintf(p->ctx, f, ap);
    va_end(ap);
    if (s == NULL && p->st == MAILDEX_STATUS_OK)
        p->st = MAILDEX_STATUS_NO_MEMORY;
    return s ? s : (char *) "0";
}

/* Runs sql with text bound as ?1 (and optional int ?2) and returns the first column of the first row,
 * or dflt when there is no row. */
static int64_t lookup(struct planner *p, const char *sql, const char *text, int64_t dflt)
{
    sqlite3_stmt *stmt = NULL;
    int64_t v = dflt;
    int rc;

    if (p->st != MAILDEX_STATUS_OK)
        return dflt;
    rc = sqlite3_prepare_v2(p->db->sql, sql, -1, &stmt, NULL);
    if (rc == SQLITE_OK) {
        if (text)
            sqlite3_bind_text(stmt, 1, text, -1, SQLITE_STATIC);
        rc = sqlite3_step(stmt);
        if (rc == SQLITE_ROW) {
            if (sqlite3_column_type(stmt, 0) != SQLITE_NULL)
                v = sqlite3_column_int64(stmt, 0);
            rc = SQLITE_OK;
        } else if (rc == SQLITE_DONE) {
            rc = SQLITE_OK;
        }
    }
    if (rc != SQLITE_OK)
        p->st = maildex__sql_error(p->db, rc, "cannot plan the query");
    sqlite3_finalize(stmt);
    return v;
}

/* Ids from sql (text bound as ?1), at most max+1 of them (so the caller can tell "too many"). */
static size_t lookup_ids(struct planner *p, const char *sql, const char *text, int64_t *ids,
                         size_t max)
{
    sqlite3_stmt *stmt = NULL;
    size_t n = 0;
    int rc;

    if (p->st != MAILDEX_STATUS_OK)
        return 0;
    rc = sqlite3_prepare_v2(p->db->sql, sql, -1, &stmt, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_text(stmt, 1, text, -1, SQLITE_STATIC);
        while ((rc = sqlite3_step(stmt)) == SQLITE_ROW && n <= max) {
            if (n < max)
                ids[n] = sqlite3_column_int64(stmt, 0);
            n++;
        }
        if (rc == SQLITE_DONE || rc == SQLITE_ROW)
            rc = SQLITE_OK;
    }
    if (rc != SQLITE_OK)
        p->st = maildex__sql_error(p->db, rc, "cannot plan the query");
    sqlite3_finalize(stmt);
    return n;
}

static void syntax_error(struct planner *p, const struct maildex__qnode *n, const char *msg)
{
    if (p->st == MAILDEX_STATUS_OK)
        p->st = maildex__error(p->db, MAILDEX_STATUS_QUERY_SYNTAX, "syntax error at position %zu: %s",
                               n->pos, msg);
}

/* ---- the REGEXP function --------------------------------------------------------------------------- */

static void regexp_free(void *re)
{
    g_regex_unref(re);
}

/* regexp(pattern, value): POSIX ERE as far as GRegex (PCRE) reads it the same way; see
 * doc/query-syntax.md for the differences. */
static void regexp_fn(sqlite3_context *c, int argc, sqlite3_value **argv)
{
    GRegex *re = sqlite3_get_auxdata(c, 0);
    const char *text;
    char *valid = NULL;
    GError *err = NULL;

    (void) argc;
    if (re == NULL) {
        const char *pattern = (const char *) sqlite3_value_text(argv[0]);
        re = g_regex_new(pattern ? pattern : "", 0, 0, &err);
        if (re == NULL) {
            sqlite3_result_error(c, err->message, -1);
            g_error_free(err);
            return;
        }
        sqlite3_set_auxdata(c, 0, re, regexp_free);
        re = sqlite3_get_auxdata(c, 0);
        if (re == NULL) {
            sqlite3_result_error_nomem(c);
            return;
        }
    }
    text = (const char *) sqlite3_value_text(argv[1]);
    if (text == NULL) {
        sqlite3_result_int(c, 0);
        return;
    }
    if (!g_utf8_validate(text, -1, NULL))
        text = valid = g_utf8_make_valid(text, -1);
    sqlite3_result_int(c, g_regex_match(re, text, 0, NULL) ? 1 : 0);
    g_free(valid);
}

int maildex__regexp_register(sqlite3 *sql)
{
    sqlite3_stmt *probe = NULL;

    /* Registering again would expire every prepared statement, so look first. */
    if (sqlite3_prepare_v2(sql, "SELECT regexp('', '')", -1, &probe, NULL) == SQLITE_OK) {
        sqlite3_finalize(probe);
        return SQLITE_OK;
    }
    return sqlite3_create_function_v2(sql, "regexp", 2,
                                      SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, NULL,
                                      regexp_fn, NULL, NULL, NULL);
}

char *maildex__regexp_check(void *ctx, const char *pattern)
{
    GError *err = NULL;
    GRegex *re = g_regex_new(pattern, 0, 0, &err);
    char *msg = NULL;

    if (re == NULL) {
        msg = talloc_asprintf(ctx, "invalid regex '%s': %s", pattern, err->message);
        g_error_free(err);
    } else {
        g_regex_unref(re);
    }
    return msg;
}

maildex_status_t maildex__vocab_ensure(maildex_db_t *db)
{
    sqlite3_stmt *probe = NULL;
    int rc;

    if (sqlite3_prepare_v2(db->sql, "SELECT 1 FROM temp.maildex_vocab LIMIT 0", -1, &probe, NULL) ==
        SQLITE_OK) {
        sqlite3_finalize(probe);
        return MAILDEX_STATUS_OK;
    }
    rc = sqlite3_exec(db->sql,
                      "CREATE VIRTUAL TABLE IF NOT EXISTS temp.maildex_vocab "
                      "USING fts5vocab(main, 'fts', 'row')",
                      NULL, NULL, NULL);
    return rc == SQLITE_OK ? MAILDEX_STATUS_OK
                           : maildex__sql_error(db, rc, "cannot open the word list");
}

/* ---- full text ------------------------------------------------------------------------------------- */

static bool is_fts_field(enum maildex__qfield f)
{
    return f == MAILDEX__QF_FREE || f == MAILDEX__QF_BODY || f == MAILDEX__QF_FROM ||
           f == MAILDEX__QF_TO || f == MAILDEX__QF_SUBJECT || f == MAILDEX__QF_ATTACHMENT ||
           f == MAILDEX__QF_MIMETYPE;
}

static bool is_fts_term(const struct maildex__qnode *n)
{
    return n->kind == MAILDEX__Q_TERM && is_fts_field(n->field) && !(n->flags & MAILDEX__QFLAG_REGEX);
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
           ((n->flags & MAILDEX__QFLAG_STEM) || (n->field != MAILDEX__QF_FROM && n->field != MAILDEX__QF_SUBJECT));
}

/* Document count of the rarest word of value, from fts5vocab; a planning estimate only. The word
 * list is opened here, the first time an estimate needs it (a temporary virtual table: most
 * queries never do, and making it is a tenth of a search's in-process time). */
static int64_t word_estimate(struct planner *p, const struct maildex__qnode *n)
{
    if (p->st == MAILDEX_STATUS_OK)
        p->st = maildex__vocab_ensure(p->db);
    if (p->st != MAILDEX_STATUS_OK)
        return ESTIMATE_CAP;
    char *lower = g_utf8_strdown(n->value, -1);
    char *folded = g_utf8_normalize(lower, -1, G_NORMALIZE_NFD);
    int64_t best = INT64_MAX;
    char **words;

    if (folded == NULL) {
        g_free(lower);
        return ESTIMATE_CAP;
    }
    /* Drop combining marks: unicode61 folds diacritics the same way. */
    GString *plain = g_string_new(NULL);
    for (const char *s = folded; *s; s = g_utf8_next_char(s)) {
        gunichar c = g_utf8_get_char(s);
        if (g_unichar_type(c) != G_UNICODE_NON_SPACING_MARK)
            g_string_append_unichar(plain, g_unichar_isalnum(c) ? c : ' ');
    }
    words = g_strsplit(plain->str, " ", -1);
    for (char **w = words; *w; w++) {
        int64_t c;
        if (**w == '\0')
            continue;
        if (n->flags & MAILDEX__QFLAG_WILDCARD && w[1] == NULL) {
            char *hi = g_strconcat(*w, "\xf4\x8f\xbf\xbf", NULL);
            sqlite3_stmt *st = NULL;
            c = 0;
            if (sqlite3_prepare_v2(p->db->sql,
                                   "SELECT sum(doc) FROM (SELECT doc FROM temp.maildex_vocab "
                                   "WHERE term >= ?1 AND term < ?2 LIMIT 1000)",
                                   -1, &st, NULL) == SQLITE_OK) {
                sqlite3_bind_text(st, 1, *w, -1, SQLITE_TRANSIENT);
                sqlite3_bind_text(st, 2, hi, -1, SQLITE_TRANSIENT);
                if (sqlite3_step(st) == SQLITE_ROW)
                    c = sqlite3_column_int64(st, 0);
            }
            sqlite3_finalize(st);
            g_free(hi);
        } else {
            c = lookup(p, "SELECT doc FROM temp.maildex_vocab WHERE term = ?1", *w, 0);
            if (fts_stemmed(n)) {
                char *stem = g_strconcat("\x01", *w, NULL);
                int64_t s = lookup(p, "SELECT doc FROM temp.maildex_vocab WHERE term = ?1", stem, 0);
                g_free(stem);
                c = s > c ? s : c;
            }
        }
        if (c < best)
            best = c;
    }
    g_strfreev(words);
    g_string_free(plain, TRUE);
    g_free(folded);
    g_free(lower);
    return best == INT64_MAX ? 0 : best;
}

static const char *fts_leaf(struct planner *p, const struct maildex__qnode *n, int64_t *est)
{
    const char *lit, *col = fts_column(n->field);

    if (n->flags & MAILDEX__QFLAG_WILDCARD)
        lit = maildex__fts_match_prefix(p->ctx, n->value);
    else if (fts_stemmed(n))
        lit = maildex__fts_match_stemmed(p->ctx, n->value);
    else
        lit = maildex__fts_match_quote(p->ctx, n->value);
    if (lit == NULL) {
        p->st = MAILDEX_STATUS_NO_MEMORY;
        return NULL;
    }
    /* The vocabulary counts read the word's whole doclist: only when an AND compares drivers. */
    *est = p->want_est ? word_estimate(p, n) : 0;
    return col ? fmt(p, "{%s} : %s", col, lit) : fmt(p, "%s", lit);
}

static const char *fts_expr(struct planner *p, const struct maildex__qnode *n, int64_t *est);

static bool fts_able(const struct maildex__qnode *n)
{
    if (n->kind == MAILDEX__Q_TERM)
        return is_fts_term(n);
    if (n->kind == MAILDEX__Q_OR) {
        for (size_t i = 0; i < n->nchildren; i++)
            if (n->children[i]->kind == MAILDEX__Q_NOT || !fts_able(n->children[i]))
                return false;
        return true;
    }
    if (n->kind == MAILDEX__Q_AND) {
        bool positive = false;
        for (size_t i = 0; i < n->nchildren; i++) {
            const struct maildex__qnode *c = n->children[i];
            if (c->kind == MAILDEX__Q_NOT ? !fts_able(c->children[0]) : !fts_able(c))
                return false;
            positive |= c->kind != MAILDEX__Q_NOT;
        }
        return positive;
    }
    return false;
}

/* FTS5 has only binary NOT, so an AND of FTS pieces is "(P1) AND (P2) ..." followed by "NOT (N)" for
 * each negated piece. take[i] says which children belong to this conjunction. */
static const char *fts_and(struct planner *p, struct maildex__qnode *const *c, size_t n,
                           const bool *take, int64_t *est)
{
    const char *pos = NULL, *neg = NULL;
    int64_t e;

    *est = INT64_MAX;
    for (size_t i = 0; i < n; i++) {
        if (!take[i] || c[i]->kind == MAILDEX__Q_NOT)
            continue;
        const char *x = fts_expr(p, c[i], &e);
        pos = pos ? fmt(p, "%s AND (%s)", pos, x) : fmt(p, "(%s)", x);
        if (e < *est)
            *est = e;
    }
    for (size_t i = 0; i < n; i++) {
        if (!take[i] || c[i]->kind != MAILDEX__Q_NOT)
            continue;
        const char *x = fts_expr(p, c[i]->children[0], &e);
        neg = neg ? fmt(p, "(%s) NOT (%s)", neg, x) : fmt(p, "(%s) NOT (%s)", pos, x);
    }
    return neg ? neg : pos;
}

static const char *fts_expr(struct planner *p, const struct maildex__qnode *n, int64_t *est)
{
    if (n->kind == MAILDEX__Q_TERM)
        return fts_leaf(p, n, est);
    if (n->kind == MAILDEX__Q_AND) {
        bool *take = talloc_array(p->ctx, bool, n->nchildren);
        for (size_t i = 0; take && i < n->nchildren; i++)
            take[i] = true;
        if (take == NULL) {
            p->st = MAILDEX_STATUS_NO_MEMORY;
            return "0";
        }
        return fts_and(p, n->children, n->nchildren, take, est);
    }
    /* OR */
    const char *s = NULL;
    int64_t e;
    *est = 0;
    for (size_t i = 0; i < n->nchildren; i++) {
        const char *x = fts_expr(p, n->children[i], &e);
        s = s ? fmt(p, "%s OR (%s)", s, x) : fmt(p, "(%s)", x);
        *est += e;
    }
    return s;
}

static const char *fts_probe(struct planner *p, const char *match, const char *a)
{
    p->fts_probes++;
    return fmt(p, "EXISTS (SELECT 1 FROM fts WHERE fts MATCH ?%d AND fts.rowid = %s.id)",
               add_text(p, match), a);
}

/* ---- terms ----------------------------------------------------------------------------------------- */

static bool is_hex16(const char *s)
{
    if (strlen(s) != 16)
        return false;
    for (; *s; s++)
        if (!isxdigit((unsigned char) *s))
            return false;
    return true;
}

static int64_t date_key(int64_t t, bool upper)
{
    const int64_t lim = INT64_MAX >> DATE_SHIFT;

    if (t >= lim)
        return INT64_MAX;
    if (t <= -lim)
        return INT64_MIN;
    return t * ((int64_t) 1 << DATE_SHIFT) + (upper ? ((int64_t) 1 << DATE_SHIFT) - 1 : 0);
}

/* A quoted date: value is one date for notmuch's date field processor, however many `..` it holds
 * (the parser has already lexed the quoted values that Xapian takes for ranges). */
static bool single_date(struct planner *p, const struct maildex__qnode *n, int64_t *from, int64_t *to)
{
    time_t now = (time_t) p->now, a, b;

    if (maildex__parse_time_string(n->value, &a, &now, MAILDEX__ROUND_DOWN) != 0 ||
        maildex__parse_time_string(n->value, &b, &now, MAILDEX__ROUND_UP_INCLUSIVE) != 0) {
        syntax_error(p, n, fmt(p, "Didn't understand date specification '%s'", n->value));
        return false;
    }
    *from = (int64_t) a;
    *to = (int64_t) b;
    return true;
}

static bool date_range(struct planner *p, const struct maildex__qnode *n, int64_t *lo, int64_t *hi)
{
    int64_t from, to;
    const char *err = NULL;

    if (n->flags & MAILDEX__QFLAG_QUOTED) {
        if (!single_date(p, n, &from, &to))
            return false;
    } else if (maildex__parse_date_range(n->value, (time_t) p->now, &from, &to, &err) != 0) {
        syntax_error(p, n, fmt(p, "%s '%s'", err ? err : "Didn't understand date specification",
                               n->value));
        return false;
    }
    /* notmuch starts an open range at DBL_MIN, the smallest positive double, so `date:..X` and `date:..`
     * leave out undated messages (date 0); the legacy `..N` comes as @0..@N and keeps them. */
    if (from == INT64_MIN)
        from = 1;
    *lo = date_key(from, false);
    *hi = date_key(to, true);
    return true;
}

static bool parse_int64(const char *s, size_t len, int64_t *v)
{
    char buf[32], *end;

    if (len == 0 || len >= sizeof buf)
        return false;
    memcpy(buf, s, len);
    buf[len] = '\0';
    *v = strtoll(buf, &end, 10);
    return *end == '\0';
}

static bool lastmod_range(struct planner *p, const struct maildex__qnode *n, int64_t *lo, int64_t *hi)
{
    const char *dots = strstr(n->value, "..");
    size_t len = strlen(n->value);

    *lo = INT64_MIN;
    *hi = INT64_MAX;
    if (dots == NULL) {
        if (parse_int64(n->value, len, lo)) {
            *hi = *lo;
            return true;
        }
    } else {
        size_t l1 = (size_t) (dots - n->value), l2 = len - l1 - 2;
        if ((l1 == 0 || parse_int64(n->value, l1, lo)) && (l2 == 0 || parse_int64(dots + 2, l2, hi)))
            return true;
    }
    syntax_error(p, n, fmt(p, "Didn't understand lastmod specification '%s'", n->value));
    return false;
}

static bool check_regex(struct planner *p, const struct maildex__qnode *n)
{
    char *err = maildex__regexp_check(p->ctx, n->value);

    if (err)
        syntax_error(p, n, err);
    return err == NULL;
}

/* "x/" "**" is x and everything below it; "**" alone is every file. */
static bool path_recursive(const char *v, char **base)
{
    size_t len = strlen(v);

    if (strcmp(v, "**") == 0) {
        *base = NULL;
        return true;
    }
    if (len >= 3 && strcmp(v + len - 3, "/**") == 0) {
        *base = g_strndup(v, len - 3);
        return true;
    }
    return false;
}

static const char *probe(struct planner *p, const struct maildex__qnode *n, const char *a);

static const char *term_probe(struct planner *p, const struct maildex__qnode *n, const char *a)
{
    const bool regex = n->flags & MAILDEX__QFLAG_REGEX;
    int64_t id, lo, hi;
    char *base;

    if (regex && !check_regex(p, n))
        return "0";
    switch (n->field) {
    case MAILDEX__QF_FROM:
        if (regex)
            return fmt(p, "EXISTS (SELECT 1 FROM fts_text WHERE fts_text.id = %s.id AND "
                          "regexp(?%d, fts_text.\"from\"))", a, add_text(p, n->value));
        break;
    case MAILDEX__QF_SUBJECT:
        if (regex)
            return fmt(p, "regexp(?%d, %s.subject)", add_text(p, n->value), a);
        break;
    case MAILDEX__QF_TAG:
        if (regex)
            return fmt(p, "EXISTS (SELECT 1 FROM message_tags mt JOIN tags t ON t.id = mt.tag "
                          "WHERE mt.message = %s.id AND regexp(?%d, t.name))", a, add_text(p, n->value));
        id = lookup(p, "SELECT id FROM tags WHERE name = ?1", n->value, -1);
        if (id < 0)
            return "0";
        return fmt(p, "EXISTS (SELECT 1 FROM message_tags WHERE tag = ?%d AND message = %s.id)",
                   add_int(p, id), a);
    case MAILDEX__QF_ID:
        if (regex)
            return fmt(p, "regexp(?%d, %s.message_id)", add_text(p, n->value), a);
        return fmt(p, "%s.message_id = ?%d", a, add_text(p, n->value));
    case MAILDEX__QF_THREAD:
        if (!is_hex16(n->value))
            return "0";
        return fmt(p, "%s.thread = ?%d", a, add_int(p, (int64_t) strtoull(n->value, NULL, 16)));
    case MAILDEX__QF_FOLDER:
        if (regex)
            return fmt(p, "EXISTS (SELECT 1 FROM files f JOIN folders fo ON fo.id = f.folder "
                          "WHERE f.message = %s.id AND regexp(?%d, fo.name))", a, add_text(p, n->value));
        id = lookup(p, "SELECT id FROM folders WHERE name = ?1", n->value, -1);
        if (id < 0)
            return "0";
        return fmt(p, "EXISTS (SELECT 1 FROM files WHERE message = %s.id AND folder = ?%d)", a,
                   add_int(p, id));
    case MAILDEX__QF_PATH:
        if (regex)
            return fmt(p, "EXISTS (SELECT 1 FROM files f JOIN directories d ON d.id = f.directory "
                          "WHERE f.message = %s.id AND regexp(?%d, d.path))", a, add_text(p, n->value));
        if (path_recursive(n->value, &base)) {
            const char *s;
            if (base == NULL)
                return "1";
            int b = add_text(p, base);
            char *slash = g_strconcat(base, "/", NULL);
            s = fmt(p, "EXISTS (SELECT 1 FROM files f JOIN directories d ON d.id = f.directory "
                       "WHERE f.message = %s.id AND (d.path = ?%d OR substr(d.path, 1, ?%d) = ?%d))",
                    a, b, add_int(p, (int64_t) strlen(slash)), add_text(p, slash));
            g_free(slash);
            g_free(base);
            return s;
        }
        id = lookup(p, "SELECT id FROM directories WHERE path = ?1", n->value, -1);
        if (id < 0)
            return "0";
        return fmt(p, "EXISTS (SELECT 1 FROM files WHERE message = %s.id AND directory = ?%d)", a,
                   add_int(p, id));
    case MAILDEX__QF_PROPERTY: {
        const char *eq = strchr(n->value, '=');
        if (eq == NULL)
            return "0";
        char *key = talloc_strndup(p->ctx, n->value, (size_t) (eq - n->value));
        return fmt(p, "EXISTS (SELECT 1 FROM properties WHERE message = %s.id AND key = ?%d AND "
                      "value = ?%d)", a, add_text(p, key), add_text(p, eq + 1));
    }
    case MAILDEX__QF_DATE:
        if (!date_range(p, n, &lo, &hi))
            return "0";
        return fmt(p, "%s.id BETWEEN ?%d AND ?%d", a, add_int(p, lo), add_int(p, hi));
    case MAILDEX__QF_LASTMOD:
        if (!lastmod_range(p, n, &lo, &hi))
            return "0";
        return fmt(p, "%s.lastmod BETWEEN ?%d AND ?%d", a, add_int(p, lo), add_int(p, hi));
    default:
        break;
    }
    int64_t est;
    return fts_probe(p, fts_leaf(p, n, &est), a);
}

/* The probe of an AND of children (those with take[i]), merging the full-text ones into one MATCH. */
static const char *probe_and(struct planner *p, struct maildex__qnode *const *c, size_t n,
                             const bool *take, const char *a)
{
    bool *fts = talloc_zero_array(p->ctx, bool, n);
    bool any_positive = false;
    const char *s = NULL;
    int64_t est;

    if (fts == NULL) {
        p->st = MAILDEX_STATUS_NO_MEMORY;
        return "0";
    }
    for (size_t i = 0; i < n; i++) {
        if (!take[i])
            continue;
        if (c[i]->kind == MAILDEX__Q_NOT ? fts_able(c[i]->children[0]) : fts_able(c[i]))
            fts[i] = true;
        any_positive |= fts[i] && c[i]->kind != MAILDEX__Q_NOT;
    }
    if (any_positive)
        s = fts_probe(p, fts_and(p, c, n, fts, &est), a);
    for (size_t i = 0; i < n; i++) {
        if (!take[i] || (any_positive && fts[i]))
            continue;
        const char *x = probe(p, c[i], a);
        s = s ? fmt(p, "%s AND %s", s, x) : x;
    }
    return s ? fmt(p, "(%s)", s) : "1";
}

static const char *probe(struct planner *p, const struct maildex__qnode *n, const char *a)
{
    const char *s = NULL;

    if (p->st != MAILDEX_STATUS_OK)
        return "0";
    switch (n->kind) {
    case MAILDEX__Q_ALL:
        return "1";
    case MAILDEX__Q_NONE:
        return "0";
    case MAILDEX__Q_TERM:
        return term_probe(p, n, a);
    case MAILDEX__Q_NOT:
        return fmt(p, "NOT %s", probe(p, n->children[0], a));
    case MAILDEX__Q_THREAD: {
        char *b = fmt(p, "t%d", ++p->aliases);
        return fmt(p, "EXISTS (SELECT 1 FROM messages %s WHERE %s.thread = %s.thread AND %s)", b, b,
                   a, probe(p, n->children[0], b));
    }
    case MAILDEX__Q_AND: {
        bool *take = talloc_array(p->ctx, bool, n->nchildren);
        for (size_t i = 0; take && i < n->nchildren; i++)
            take[i] = true;
        if (take == NULL) {
            p->st = MAILDEX_STATUS_NO_MEMORY;
            return "0";
        }
        return probe_and(p, n->children, n->nchildren, take, a);
    }
    case MAILDEX__Q_OR:
        if (fts_able(n)) {
            int64_t est;
            return fts_probe(p, fts_expr(p, n, &est), a);
        }
        for (size_t i = 0; i < n->nchildren; i++) {
            const char *x = probe(p, n->children[i], a);
            s = s ? fmt(p, "%s OR %s", s, x) : x;
        }
        return fmt(p, "(%s)", s);
    case MAILDEX__Q_XOR:
        for (size_t i = 0; i < n->nchildren; i++) {
            const char *x = probe(p, n->children[i], a);
            s = s ? fmt(p, "%s + (%s)", s, x) : fmt(p, "(%s)", x);
        }
        return fmt(p, "((%s) %% 2 = 1)", s);
    }
    return "0";
}

/* ---- drivers --------------------------------------------------------------------------------------- */

static bool one_arm(struct planner *p, struct drive *d, const char *kind, int64_t est,
                    const char *from, const char *key, const char *where, bool files)
{
    d->arms = talloc_zero(p->ctx, struct arm);
    if (d->arms == NULL) {
        p->st = MAILDEX_STATUS_NO_MEMORY;
        return false;
    }
    *d->arms = (struct arm){from, key, where, files};
    d->narms = 1;
    d->est = est;
    d->kind = kind;
    return true;
}

/* A driver whose size is counted only if an AND has to compare it (resolve()). */
static bool lazy_arm(struct planner *p, struct drive *d, const char *kind, const char *count_from,
                     int k1, int k2, const char *from, const char *key, const char *where, bool files)
{
    if (!one_arm(p, d, kind, EST_LAZY, from, key, where, files))
        return false;
    d->count_from = count_from;
    d->count_k[0] = k1;
    d->count_k[1] = k2;
    return true;
}

/* Makes d's count if it is lazy, stopping at cap rows (so a result of cap means "cap or more"). */
static void resolve(struct planner *p, struct drive *d, int64_t cap)
{
    sqlite3_stmt *stmt = NULL;
    char *sql;

    if (d->est != EST_LAZY)
        return;
    d->est = cap;
    if (d->count_from == NULL)
        return;
    sql = fmt(p, "SELECT count(*) FROM (SELECT 1 FROM %s LIMIT %" PRId64 ")", d->count_from, cap);
    if (p->st == MAILDEX_STATUS_OK && sqlite3_prepare_v2(p->db->sql, sql, -1, &stmt, NULL) == SQLITE_OK) {
        for (int i = 0; i < 2; i++) {
            if (d->count_k[i] == 0)
                continue;
            const struct maildex__bind *b = &p->binds[d->count_k[i] - MAILDEX__PLAN_FIRST_PARAM];
            if (b->is_text)
                sqlite3_bind_text(stmt, i + 1, b->s, -1, SQLITE_STATIC);
            else
                sqlite3_bind_int64(stmt, i + 1, b->i);
        }
        if (sqlite3_step(stmt) == SQLITE_ROW)
            d->est = sqlite3_column_int64(stmt, 0);
    }
    sqlite3_finalize(stmt);
}

static bool drive(struct planner *p, const struct maildex__qnode *n, struct drive *d);

static bool drive_tag_ids(struct planner *p, struct drive *d, const int64_t *ids, size_t count)
{
    d->arms = talloc_zero_array(p->ctx, struct arm, count ? count : 1);
    if (d->arms == NULL) {
        p->st = MAILDEX_STATUS_NO_MEMORY;
        return false;
    }
    d->kind = count == 1 ? "tag" : "union";
    d->est = 0;
    for (size_t i = 0; i < count; i++) {
        char idtext[24];
        snprintf(idtext, sizeof idtext, "%" PRId64, ids[i]);
        if (p->want_est)
            d->est += lookup(p, "SELECT messages FROM tags WHERE id = CAST(?1 AS INTEGER)", idtext, 0);
        d->arms[i] = (struct arm){"message_tags d CROSS JOIN messages m ON m.id = d.message",
                                  "d.message", fmt(p, "d.tag = ?%d", add_int(p, ids[i])), false};
    }
    d->narms = count;
    if (count == 0)
        return one_arm(p, d, "none", 0, "messages m", "m.id", "0", false);
    /* tags.messages is exact: one tag and nothing else needs no counting. */
    d->tag_param = count == 1 ? add_int(p, ids[0]) : 0;
    return true;
}

static bool drive_term(struct planner *p, const struct maildex__qnode *n, struct drive *d)
{
    const bool regex = n->flags & MAILDEX__QFLAG_REGEX;
    int64_t ids[MAX_ARMS + 1], id, lo, hi;
    size_t count;
    int k;

    if (is_fts_term(n)) {
        int64_t est;
        const char *m = fts_leaf(p, n, &est);
        return one_arm(p, d, "fts", est, "fts d CROSS JOIN messages m ON m.id = d.rowid", "d.rowid",
                       fmt(p, "d.fts MATCH ?%d", add_text(p, m)), false);
    }
    switch (n->field) {
    case MAILDEX__QF_TAG:
        if (regex) {
            if (!check_regex(p, n))
                return false;
            if (maildex__regexp_register(p->db->sql) != SQLITE_OK)
                return false;
            count = lookup_ids(p, "SELECT id FROM tags WHERE regexp(?1, name) ORDER BY id", n->value,
                               ids, MAX_ARMS);
            return count <= MAX_ARMS && drive_tag_ids(p, d, ids, count);
        }
        id = lookup(p, "SELECT id FROM tags WHERE name = ?1", n->value, -1);
        return drive_tag_ids(p, d, &id, id < 0 ? 0 : 1);
    case MAILDEX__QF_ID:
        if (regex)
            return false;
        return one_arm(p, d, "id", 1, "messages m", "m.id",
                       fmt(p, "m.message_id = ?%d", add_text(p, n->value)), false);
    case MAILDEX__QF_THREAD:
        if (!is_hex16(n->value))
            return one_arm(p, d, "none", 0, "messages m", "m.id", "0", false);
        id = (int64_t) strtoull(n->value, NULL, 16);
        k = add_int(p, id);
        /* threads.messages is maintained: no need to count. */
        return one_arm(p, d, "thread",
                       p->want_est ? lookup(p, "SELECT messages FROM threads WHERE id = CAST(?1 AS "
                                               "INTEGER)", fmt(p, "%" PRId64, id), 0)
                                   : 0,
                       "messages m", "m.id", fmt(p, "m.thread = ?%d", k), false);
    case MAILDEX__QF_FOLDER:
        if (regex)
            return false;
        id = lookup(p, "SELECT id FROM folders WHERE name = ?1", n->value, -1);
        if (id < 0)
            return one_arm(p, d, "none", 0, "messages m", "m.id", "0", false);
        k = add_int(p, id);
        return lazy_arm(p, d, "folder", "files WHERE folder = ?1", k, 0,
                       "files d CROSS JOIN messages m ON m.id = d.message", "d.message",
                       fmt(p, "d.folder = ?%d", k), true);
    case MAILDEX__QF_PATH: {
        char *base;
        if (regex || path_recursive(n->value, &base)) {
            if (!regex)
                g_free(base);
            return false; /* probed: a subtree can hold any number of directories */
        }
        id = lookup(p, "SELECT id FROM directories WHERE path = ?1", n->value, -1);
        if (id < 0)
            return one_arm(p, d, "none", 0, "messages m", "m.id", "0", false);
        k = add_int(p, id);
        return lazy_arm(p, d, "path", "files WHERE directory = ?1", k, 0,
                       "files d CROSS JOIN messages m ON m.id = d.message", "d.message",
                       fmt(p, "d.directory = ?%d", k), true);
    }
    case MAILDEX__QF_PROPERTY: {
        const char *eq = strchr(n->value, '=');
        if (eq == NULL)
            return one_arm(p, d, "none", 0, "messages m", "m.id", "0", false);
        int kk = add_text(p, talloc_strndup(p->ctx, n->value, (size_t) (eq - n->value)));
        int kv = add_text(p, eq + 1);
        return lazy_arm(p, d, "property", "properties WHERE key = ?1 AND value = ?2", kk, kv,
                       "properties d CROSS JOIN messages m ON m.id = d.message", "d.message",
                       fmt(p, "d.key = ?%d AND d.value = ?%d", kk, kv), false);
    }
    case MAILDEX__QF_DATE:
        if (!date_range(p, n, &lo, &hi))
            return false;
        k = add_int(p, lo);
        add_int(p, hi);
        return lazy_arm(p, d, "date", "messages WHERE id BETWEEN ?1 AND ?2", k, k + 1,
                       "messages m", "m.id", fmt(p, "m.id BETWEEN ?%d AND ?%d", k, k + 1), false);
    default:
        return false;
    }
}

/* Whether n might drive (drive() may still refuse a term it cannot stream). */
static bool may_drive(const struct maildex__qnode *n)
{
    return n->kind == MAILDEX__Q_NONE || n->kind == MAILDEX__Q_TERM || n->kind == MAILDEX__Q_AND ||
           n->kind == MAILDEX__Q_OR;
}

/* Picks the smaller of the candidates: those with a known size first, then the lazy ones, each
 * counted only up to the best size so far (plus one, so that "no smaller" is all it learns). */
static ssize_t pick(struct planner *p, struct drive *cand, const bool *ok, size_t n)
{
    ssize_t best = -1;

    for (size_t i = 0; i < n; i++)
        if (ok[i] && cand[i].est != EST_LAZY && (best < 0 || cand[i].est < cand[best].est))
            best = (ssize_t) i;
    for (size_t i = 0; i < n; i++) {
        if (!ok[i] || cand[i].est != EST_LAZY)
            continue;
        int64_t cap = best >= 0 && cand[best].est < ESTIMATE_CAP ? cand[best].est + 1 : ESTIMATE_CAP;
        resolve(p, &cand[i], cap);
        if (best < 0 || cand[i].est < cand[best].est)
            best = (ssize_t) i;
    }
    return best;
}

/* An AND drives from its most selective conjunct (all full-text conjuncts together count as one) and
 * probes the others in each arm. Sizes are estimated only when there is a choice to make. */
static bool drive_and(struct planner *p, const struct maildex__qnode *n, struct drive *d)
{
    const size_t nc = n->nchildren;
    bool *fts = talloc_zero_array(p->ctx, bool, nc + 1), *rest = talloc_zero_array(p->ctx, bool, nc);
    bool *ok = talloc_zero_array(p->ctx, bool, nc + 1);
    struct drive *cand = talloc_zero_array(p->ctx, struct drive, nc + 1);
    const bool want_est = p->want_est;
    bool any_fts = false;
    size_t choices = 0;
    ssize_t best;

    if (fts == NULL || rest == NULL || ok == NULL || cand == NULL) {
        p->st = MAILDEX_STATUS_NO_MEMORY;
        return false;
    }
    for (size_t i = 0; i < nc; i++) {
        const struct maildex__qnode *c = n->children[i];
        fts[i] = c->kind == MAILDEX__Q_NOT ? fts_able(c->children[0]) : fts_able(c);
        any_fts |= fts[i] && c->kind != MAILDEX__Q_NOT;
    }
    for (size_t i = 0; i < nc; i++)
        choices += !(any_fts && fts[i]) && may_drive(n->children[i]);
    choices += any_fts;
    if (choices > 1)
        p->want_est = true;
    /* cand[nc] is the full-text group, cand[i] child i. */
    if (any_fts) {
        int64_t est;
        const char *m = fts_and(p, n->children, nc, fts, &est);
        ok[nc] = one_arm(p, &cand[nc], "fts", est, "fts d CROSS JOIN messages m ON m.id = d.rowid",
                         "d.rowid", fmt(p, "d.fts MATCH ?%d", add_text(p, m)), false);
    }
    for (size_t i = 0; i < nc; i++)
        ok[i] = !(any_fts && fts[i]) && n->children[i]->kind != MAILDEX__Q_NOT &&
                drive(p, n->children[i], &cand[i]);
    best = choices > 1 ? pick(p, cand, ok, nc + 1) : -1;
    for (size_t i = 0; best < 0 && i <= nc; i++)
        if (ok[i])
            best = (ssize_t) i;
    p->want_est = want_est;
    if (best < 0 || p->st != MAILDEX_STATUS_OK)
        return false;
    for (size_t i = 0; i < nc; i++)
        rest[i] = (size_t) best == nc ? !fts[i] : (ssize_t) i != best;
    const char *others = probe_and(p, n->children, nc, rest, "m");
    *d = cand[best];
    d->tag_param = 0; /* the probes below filter */
    for (size_t i = 0; i < d->narms; i++)
        d->arms[i].where = fmt(p, "%s AND %s", d->arms[i].where, others);
    return true;
}

static bool drive_or(struct planner *p, const struct maildex__qnode *n, struct drive *d)
{
    struct drive *parts = talloc_zero_array(p->ctx, struct drive, n->nchildren);
    size_t total = 0;

    if (fts_able(n)) {
        int64_t est;
        const char *m = fts_expr(p, n, &est);
        return one_arm(p, d, "fts", est, "fts d CROSS JOIN messages m ON m.id = d.rowid", "d.rowid",
                       fmt(p, "d.fts MATCH ?%d", add_text(p, m)), false);
    }
    if (parts == NULL)
        return false;
    d->est = 0;
    for (size_t i = 0; i < n->nchildren; i++) {
        if (!drive(p, n->children[i], &parts[i]))
            return false;
        if (p->want_est)
            resolve(p, &parts[i], ESTIMATE_CAP);
        total += parts[i].narms;
        d->est += p->want_est ? parts[i].est : 0;
    }
    if (total > MAX_ARMS)
        return false;
    d->arms = talloc_zero_array(p->ctx, struct arm, total);
    if (d->arms == NULL)
        return false;
    d->narms = 0;
    for (size_t i = 0; i < n->nchildren; i++)
        for (size_t j = 0; j < parts[i].narms; j++)
            d->arms[d->narms++] = parts[i].arms[j];
    d->kind = "union";
    return true;
}

/* Fills d with the arms that stream exactly the messages matching n, if n can drive. */
static bool drive(struct planner *p, const struct maildex__qnode *n, struct drive *d)
{
    if (p->st != MAILDEX_STATUS_OK)
        return false;
    switch (n->kind) {
    case MAILDEX__Q_NONE:
        return one_arm(p, d, "none", 0, "messages m", "m.id", "0", false);
    case MAILDEX__Q_TERM:
        return drive_term(p, n, d);
    case MAILDEX__Q_AND:
        return drive_and(p, n, d);
    case MAILDEX__Q_OR:
        return drive_or(p, n, d);
    default:
        return false;
    }
}

/* ---- exclusion ------------------------------------------------------------------------------------- */

/* notmuch drops an excluded tag that the query mentions anywhere (even under NOT, or through a regex
 * that matches it). */
static bool names_tag(const struct maildex__qnode *n, const char *tag)
{
    if (n->kind == MAILDEX__Q_TERM && n->field == MAILDEX__QF_TAG) {
        if (n->flags & MAILDEX__QFLAG_REGEX) {
            GRegex *re = g_regex_new(n->value, 0, 0, NULL);
            bool hit = re && g_regex_match(re, tag, 0, NULL);
            if (re)
                g_regex_unref(re);
            return hit;
        }
        return strcmp(n->value, tag) == 0;
    }
    for (size_t i = 0; i < n->nchildren; i++)
        if (names_tag(n->children[i], tag))
            return true;
    return false;
}

static const char *exclusion(struct planner *p, const struct maildex__qnode *root)
{
    const char *list = NULL;

    if (p->opts->exclude == MAILDEX__EXCLUDE_FALSE || p->opts->exclude_tags == NULL)
        return "0";
    for (const char *const *t = p->opts->exclude_tags; *t; t++) {
        if (names_tag(root, *t))
            continue;
        /* A tag no message carries excludes nothing: leaving it out spares every result a probe
         * (most users' spam and deleted tags are empty or rare). tags.messages is exact. */
        int64_t id = lookup(p, "SELECT id FROM tags WHERE name = ?1 AND messages > 0", *t, -1);
        if (id < 0)
            continue;
        int k = add_int(p, id);
        list = list ? fmt(p, "%s, ?%d", list, k) : fmt(p, "?%d", k);
    }
    if (list == NULL)
        return "0";
    p->excluded_ids = list;
    return fmt(p, "EXISTS (SELECT 1 FROM message_tags WHERE message = m.id AND tag IN (%s))", list);
}

/* ---- the plan -------------------------------------------------------------------------------------- */

/* Whether SQL text refers to the messages row "m" (an "m." not preceded by an identifier character).
 * Only the planner's own text is searched: user values are bound parameters. */
static bool mentions_m(const char *sql)
{
    for (const char *x = sql; (x = strstr(x, "m.")) != NULL; x++)
        if (x == sql || !(g_ascii_isalnum(x[-1]) || x[-1] == '_'))
            return true;
    return false;
}

/* An index driven arm joins messages only for the probes that read it: without them the join is a
 * seek per match for nothing (count tag:unread at 100k: 43 ms, 9,266 seeks). Every row of the
 * driving tables belongs to a message, so the join never filters. */
static struct arm without_unused_join(struct planner *p, struct arm a)
{
    const char *join = strstr(a.from, " CROSS JOIN messages m ON ");

    if (join && !mentions_m(a.where) && !mentions_m(a.key))
        a.from = talloc_strndup(p->ctx, a.from, (size_t) (join - a.from));
    return a;
}

/* The count of a stream of every message or of one tag's, from the stored counts (meta's message
 * count, tags.messages) less the excluded messages among them, which are read from the excluded
 * tags' own index entries: the work follows the excluded tags' size, never the store's. NULL for
 * any other stream. */
static const char *stored_count(struct planner *p, const struct drive *d, bool hiding)
{
    const bool all = d->narms == 1 && strcmp(d->kind, "all") == 0;
    const char *total;

    if (!all && !(d->narms == 1 && strcmp(d->kind, "tag") == 0 && d->tag_param))
        return NULL;
    total = all ? "(SELECT value FROM meta WHERE key = 'messages')"
                : fmt(p, "(SELECT messages FROM tags WHERE id = ?%d)", d->tag_param);
    if (!hiding)
        return fmt(p, "SELECT %s", total);
    if (all)
        return fmt(p, "SELECT %s - (SELECT count(DISTINCT message) FROM message_tags WHERE tag IN (%s))",
                   total, p->excluded_ids);
    return fmt(p,
               "SELECT %s - (SELECT count(DISTINCT e.message) FROM message_tags e WHERE e.tag IN (%s) "
               "AND EXISTS (SELECT 1 FROM message_tags x WHERE x.tag = ?%d AND x.message = e.message))",
               total, p->excluded_ids, d->tag_param);
}

static const char *arm_sql(struct planner *p, const struct arm *a, bool single)
{
    return fmt(p, "SELECT %s AS k FROM %s WHERE %s%s%s", a->key, a->from, a->where,
               single && a->files ? " GROUP BY " : "", single && a->files ? a->key : "");
}

maildex_status_t maildex__plan_build(void *ctx, maildex_db_t *db, const struct maildex__qnode *root,
                                     const struct maildex__plan_options *opts,
                                     struct maildex__plan **out)
{
    struct maildex__plan *plan = talloc_zero(ctx, struct maildex__plan);
    struct planner p = {.ctx = plan, .db = db, .opts = opts};
    struct drive d = {0};
    const char *stream = NULL, *ranged = NULL, *hide;
    maildex_status_t st;
    int probes;

    *out = NULL;
    if (plan == NULL)
        return MAILDEX_STATUS_NO_MEMORY;
    p.now = opts->now ? opts->now : (int64_t) time(NULL);
    if (maildex__regexp_register(db->sql) != SQLITE_OK) {
        st = maildex__sql_error(db, sqlite3_errcode(db->sql), "cannot register regexp()");
        goto done;
    }
    plan->excluded = exclusion(&p, root);
    probes = p.fts_probes;
    plan->match = probe(&p, root, "m");
    plan->match_costly = p.fts_probes > probes;
    hide = opts->exclude == MAILDEX__EXCLUDE_TRUE || opts->exclude == MAILDEX__EXCLUDE_ALL
               ? plan->excluded : "0";
    if (!drive(&p, root, &d) && p.st == MAILDEX_STATUS_OK)
        one_arm(&p, &d, root->kind == MAILDEX__Q_ALL ? "all" : "scan", INT64_MAX, "messages m",
                "m.id", plan->match, false);
    for (size_t i = 0; i < d.narms && p.st == MAILDEX_STATUS_OK; i++) {
        struct arm a = d.arms[i];
        if (strcmp(hide, "0") != 0)
            a.where = fmt(&p, "%s AND NOT %s", a.where, hide);
        a = without_unused_join(&p, a);
        const char *s = arm_sql(&p, &a, d.narms == 1);
        stream = stream ? fmt(&p, "%s UNION %s", stream, s) : s;
        a.where = fmt(&p, "%s AND %s BETWEEN ?1 AND ?2", a.where, a.key);
        s = arm_sql(&p, &a, false);
        ranged = ranged ? fmt(&p, "%s UNION %s", ranged, s) : s;
    }
    plan->stream = stream;
    plan->ranged = ranged;
    plan->count = stored_count(&p, &d, strcmp(hide, "0") != 0);
    plan->order = opts->oldest_first ? " ORDER BY 1" : " ORDER BY 1 DESC";
    plan->driver = d.kind;
    plan->binds = p.binds;
    plan->nbinds = p.nbinds;
    st = p.st;
done:
    if (st == MAILDEX_STATUS_NO_MEMORY)
        maildex__error(db, st, "out of memory while planning the query");
    if (st != MAILDEX_STATUS_OK)
        talloc_free(plan);
    else
        *out = plan;
    return st;
}

maildex_status_t maildex__plan_bind(maildex_db_t *db, const struct maildex__plan *plan,
                                    sqlite3_stmt *stmt)
{
    const int max = sqlite3_bind_parameter_count(stmt);

    for (size_t i = 0; i < plan->nbinds; i++) {
        const int k = MAILDEX__PLAN_FIRST_PARAM + (int) i;
        const struct maildex__bind *b = &plan->binds[i];
        int rc;
        if (k > max)
            break;
        rc = b->is_text ? sqlite3_bind_text(stmt, k, b->s, -1, SQLITE_STATIC)
                        : sqlite3_bind_int64(stmt, k, b->i);
        if (rc != SQLITE_OK)
            return maildex__sql_error(db, rc, "cannot bind a query value");
    }
    return MAILDEX_STATUS_OK;
}
