/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fts-prefix.c: see fts-prefix.h. */
#include "fts-prefix.h"

#include "sqlext/tokenizer.h"
#include "fts-words.h"
#include "plan-types.h"
#include "side-read.h"

#include <string.h>
#include <talloc.h>

/* Below this many bytes of doclists a prefix is read on one core: opening a second connection and
 * thread would cost more than it saves. */
#define SIDE_MIN_BYTES (256 * 1024)

/* Up to this many words per statement: FTS5's OR of them merges their keys in C, and the heavy words
 * of a prefix share most of their messages (at 100k, `a*`'s four heaviest have 252,000 entries in
 * 91,500 messages), so fewer keys reach SQL and the union; its cost per row grows with the words it
 * merges. */
#define GROUP_WORDS 16

static const char *const group_sql = "SELECT rowid FROM fts WHERE fts MATCH ?1";

/* Whether every byte of s (n bytes) is one the tokenizer keeps as it is: [a-z0-9_]. */
static bool plain(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!g_ascii_islower(s[i]) && !g_ascii_isdigit(s[i]) && s[i] != '_')
            return false;
    return n > 0;
}

/* Appends word to a half's current group, starting a new group (an FTS5 OR of up to GROUP_WORDS
 * plain words, each quoted: they need no escaping) when the last is full. */
static void add_to_half(GPtrArray *groups, size_t *in_last, const char *word)
{
    if (groups->len == 0 || *in_last == GROUP_WORDS) {
        g_ptr_array_add(groups, g_string_new(NULL));
        *in_last = 0;
    }
    g_string_append_printf(groups->pdata[groups->len - 1], "%s\"%s\"", (*in_last)++ ? " OR " : "", word);
}

/* Larger doclists first, so the greedy split below balances. */
static int by_bytes_desc(const void *a, const void *b)
{
    const struct maildex__fts_word *x = a, *y = b;
    return x->bytes < y->bytes ? 1 : x->bytes > y->bytes ? -1 : 0;
}

/* Reads each expression of exprs[0..n) on this connection into sets[]; false when a read fails. */
static bool read_here(void *ctx, maildex_db_t *db, const char *const *exprs, size_t n,
                      struct maildex__set **sets)
{
    sqlite3_stmt *stmt = NULL;
    bool ok = sqlite3_prepare_v2(db->sql, group_sql, -1, &stmt, NULL) == SQLITE_OK;

    for (size_t i = 0; i < n && ok; i++) {
        int rc;
        sqlite3_reset(stmt);
        sqlite3_bind_text(stmt, 1, exprs[i], -1, SQLITE_STATIC);
        ok = (sets[i] = maildex__set_of_column(ctx, stmt, &rc)) != NULL;
    }
    sqlite3_finalize(stmt);
    return ok;
}

/* The groups of the words FTS5 must read (those without keys from the pages), heaviest first, each
 * word in the lighter of two halves (in one when the words are too light to share), as FTS5
 * expressions on ctx: halves[h] the expressions of half h. */
static void split(void *ctx, const char *column, struct maildex__fts_word *words, size_t n,
                  GPtrArray *halves[2])
{
    GPtrArray *groups[2] = {g_ptr_array_new(), g_ptr_array_new()};
    int64_t total = 0, weight[2] = {0, 0};
    size_t in_last[2] = {0, 0};

    for (size_t i = 0; i < n; i++)
        total += words[i].keys ? 0 : words[i].bytes;
    qsort(words, n, sizeof *words, by_bytes_desc);
    for (size_t i = 0; i < n; i++) {
        const int h = total >= SIDE_MIN_BYTES && weight[1] < weight[0];
        if (words[i].keys)
            continue;
        weight[h] += words[i].bytes;
        add_to_half(groups[h], &in_last[h], words[i].text);
    }
    for (int h = 0; h < 2; h++) {
        for (guint g = 0; g < groups[h]->len; g++) {
            GString *e = groups[h]->pdata[g];
            g_ptr_array_add(halves[h], column ? talloc_asprintf(ctx, "{%s} : (%s)", column, e->str)
                                              : talloc_strdup(ctx, e->str));
            g_string_free(e, TRUE);
        }
        g_ptr_array_free(groups[h], TRUE);
    }
}

struct maildex__set *maildex__fts_prefix_keys(void *ctx, maildex_db_t *db, const char *column,
                                              const char *prefix)
{
    void *local = talloc_new(NULL);
    char *lower = g_ascii_strdown(prefix, -1);
    const size_t len = strlen(lower);
    GPtrArray *halves[2] = {g_ptr_array_new(), g_ptr_array_new()};
    struct maildex__fts_word *words = NULL;
    struct maildex__set **sets = NULL, *out = NULL;
    struct maildex__plan side_values = {0};
    struct maildex__side_read *side = NULL;
    const char **side_sqls = NULL;
    size_t n = 0, nhere, nside, nread = 0;
    bool ok;

    ok = local && plain(lower, len) && g_ascii_strcasecmp(lower, prefix) == 0 &&
         sqlite3_txn_state(db->sql, "main") != SQLITE_TXN_WRITE &&
         (words = maildex__fts_words(local, db, lower, len, &n)) != NULL;
    for (size_t i = 0; ok && i < n; i++) {
        ok = plain(words[i].text, strlen(words[i].text));
        if (column) /* the pages' keys are of every column */
            words[i].keys = NULL;
    }
    if (ok)
        split(local, column, words, n, halves);
    nhere = halves[0]->len;
    nside = halves[1]->len;
    for (size_t i = 0; ok && i < nhere + nside; i++)
        ok = (i < nhere ? halves[0]->pdata[i] : halves[1]->pdata[i - nhere]) != NULL;
    for (size_t i = 0; ok && i < n; i++)
        nread += words[i].keys != NULL;
    if (ok) {
        sets = talloc_zero_array(local, struct maildex__set *, nhere + nside + nread + 1);
        side_sqls = talloc_zero_array(local, const char *, nside + 1);
        side_values.binds = talloc_zero_array(local, struct maildex__bind, nside + 1);
        ok = sets && side_sqls && side_values.binds;
    }
    for (size_t j = 0; ok && j < nside; j++) {
        side_values.binds[j] = (struct maildex__bind){.kind = MAILDEX__BIND_TEXT, .s = halves[1]->pdata[j]};
        ok = (side_sqls[j] = talloc_asprintf(local, "SELECT rowid FROM fts WHERE fts MATCH ?%d",
                                             MAILDEX__PLAN_FIRST_PARAM + (int) j)) != NULL;
    }
    side_values.nbinds = nside;
    if (ok && nside)
        side = maildex__side_read_start(local, db, side_sqls, nside, &side_values);
    ok = ok && read_here(local, db, (const char *const *) halves[0]->pdata, nhere, sets);
    if (side)
        maildex__side_read_finish(side, db, local, sets + nhere);
    for (size_t j = 0; ok && j < nside; j++) /* what the side did not read */
        if (sets[nhere + j] == NULL)
            ok = read_here(local, db, (const char *const *) &halves[1]->pdata[j], 1, sets + nhere + j);
    for (size_t i = 0, k = nhere + nside; ok && i < n; i++)
        if (words[i].keys)
            sets[k++] = words[i].keys;
    if (ok && (out = maildex__set_union(local, sets, nhere + nside + nread)) != NULL)
        talloc_steal(ctx, out);
    g_ptr_array_free(halves[0], TRUE);
    g_ptr_array_free(halves[1], TRUE);
    g_free(lower);
    talloc_free(local);
    return out;
}

/* Makes FTS5 connect the table (and create its tokenizer on this connection, whose arguments a
 * standalone tokenizer copies) if nothing has yet. */
static void connect_fts(maildex_db_t *db)
{
    sqlite3_stmt *stmt = NULL;

    sqlite3_prepare_v2(db->sql, "SELECT rowid FROM fts LIMIT 0", -1, &stmt, NULL);
    sqlite3_finalize(stmt);
}

struct maildex__set *maildex__fts_term_keys(void *ctx, maildex_db_t *db, const char *literal)
{
    void *local = talloc_new(NULL);
    struct maildex__set **sets = NULL, *out = NULL;
    char **tokens = NULL;
    size_t n = 0;
    bool ok = local && sqlite3_txn_state(db->sql, "main") != SQLITE_TXN_WRITE;

    if (ok && (tokens = maildex__fts_query_tokens(local, db->fts, literal)) == NULL) {
        connect_fts(db);
        tokens = maildex__fts_query_tokens(local, db->fts, literal);
    }
    while (tokens && tokens[n])
        n++;
    ok = ok && tokens && (sets = talloc_zero_array(local, struct maildex__set *, n + 1)) != NULL;
    for (size_t i = 0; ok && i < n; i++)
        ok = (sets[i] = maildex__fts_word_keys(sets, db, tokens[i], strlen(tokens[i]))) != NULL;
    if (ok && (out = maildex__set_union(local, sets, n)) != NULL)
        talloc_steal(ctx, out);
    talloc_free(local);
    return out;
}
