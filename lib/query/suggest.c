/* SPDX-License-Identifier: GPL-3.0-or-later */
/* "Did you mean" (maildex_db_suggest): the indexed words within two edits of a word, from the word
 * list (fts5vocab), reading a bounded range of it, never all of it. Nothing here knows queries. */
#include "store/maildex-private.h"

#include "sqlext/tokenizer.h"

#include <glib.h>
#include <string.h>

/* ---- did you mean ---------------------------------------------------------------------------------- */

/* Levenshtein distance of a and b (bytes), or limit + 1 once it must exceed limit. */
static size_t edit_distance(const char *a, const char *b, size_t limit)
{
    size_t la = strlen(a), lb = strlen(b), prev[66], cur[66];

    if (la > 64 || lb > 64 || (la > lb ? la - lb : lb - la) > limit)
        return limit + 1;
    for (size_t j = 0; j <= lb; j++)
        prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t best = cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
            size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
            cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
            if (cur[j] < best)
                best = cur[j];
        }
        if (best > limit)
            return limit + 1;
        memcpy(prev, cur, (lb + 1) * sizeof *prev);
    }
    return prev[lb];
}

struct candidate {
    char *term;
    size_t distance;
    int64_t docs;
};

static gint candidate_cmp(gconstpointer a, gconstpointer b)
{
    const struct candidate *x = a, *y = b;

    if (x->distance != y->distance)
        return x->distance < y->distance ? -1 : 1;
    if (x->docs != y->docs)
        return x->docs > y->docs ? -1 : 1;
    return strcmp(x->term, y->term);
}

maildex_status_t maildex_db_suggest(maildex_db_t *db, const char *word, size_t max, char ***out)
{
    char *w = maildex__fts_fold(word ? word : "");
    GArray *cands = g_array_new(FALSE, FALSE, sizeof(struct candidate));
    sqlite3_stmt *stmt = NULL;
    maildex_status_t st;
    char **list = NULL;
    int rc;

    *out = NULL;
    st = maildex__vocab_ensure(db);
    if (st != MAILDEX_STATUS_OK)
        goto done;
    /* Candidates share the first character: a bounded range of the vocabulary, never all of it. */
    rc = sqlite3_prepare_v2(db->sql, "SELECT term, doc FROM temp.maildex_vocab WHERE term >= ?1 AND "
                                     "term < ?2 LIMIT 200000", -1, &stmt, NULL);
    if (rc == SQLITE_OK && *w) {
        size_t first = (size_t) (g_utf8_next_char(w) - w);
        char *lo = g_strndup(w, first), *hi = g_strconcat(lo, "\xf4\x8f\xbf\xbf", NULL);
        sqlite3_bind_text(stmt, 1, lo, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(stmt, 2, hi, -1, SQLITE_TRANSIENT);
        g_free(lo);
        g_free(hi);
        while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
            const char *term = (const char *) sqlite3_column_text(stmt, 0);
            size_t d;
            if (term == NULL || term[0] == MAILDEX_FTS_STEM_MARKER)
                continue;
            d = edit_distance(w, term, 2);
            if (d == 0) {
                g_array_set_size(cands, 0);
                break;
            }
            if (d <= 2) {
                struct candidate c = {g_strdup(term), d, sqlite3_column_int64(stmt, 1)};
                g_array_append_val(cands, c);
            }
        }
        if (rc == SQLITE_DONE || rc == SQLITE_ROW)
            rc = SQLITE_OK;
    }
    if (rc != SQLITE_OK) {
        st = maildex__sql_error(db, rc, "cannot read the word list");
        goto done;
    }
    g_array_sort(cands, candidate_cmp);
    list = talloc_zero_array(db, char *, (cands->len < max ? cands->len : max) + 1);
    for (guint i = 0; list && i < cands->len && i < max; i++)
        list[i] = talloc_strdup(list, g_array_index(cands, struct candidate, i).term);
    if (list == NULL)
        st = maildex__error(db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
    *out = list;
done:
    sqlite3_finalize(stmt);
    for (guint i = 0; i < cands->len; i++)
        g_free(g_array_index(cands, struct candidate, i).term);
    g_array_free(cands, TRUE);
    g_free(w);
    return st;
}

void maildex_strings_free(char **strings)
{
    talloc_free(strings);
}

