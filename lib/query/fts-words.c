/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fts-words.c: see fts-words.h. The layout read here (ext/fts5/fts5_index.c, "Details"):
 *   fts_data row 10, the structure: a 4-byte cookie, varints nLevel, nSegment, write counter, then per
 *     level nMerge, nSeg and per segment its id, first and last leaf page;
 *   fts_data row (segid << 37) + pgno, a leaf page: a 2-byte offset of the first rowid and a 2-byte
 *     offset of the footer (big-endian), words and doclists, and in the footer one varint per word
 *     that starts on the page (its offset, the first absolute, then deltas); the first word of a page
 *     is "varint length, bytes", each later one "varint shared prefix, varint length, bytes";
 *   fts_idx(segid, term, pgno << 1 | dlidx): for each page where a word starts (but a segment's first),
 *     a key no greater than its first word and greater than every word before it.
 * Words are keyed with a leading '0' (the main index; prefix indexes, which maildex does not make,
 * would use '1' on). Varints are SQLite's. */
#include "fts-words.h"

#include <string.h>
#include <talloc.h>

#define MAIN_INDEX '0'
#define PAGE_BITS 37 /* FTS5_DATA_PAGE_B + FTS5_DATA_HEIGHT_B + FTS5_DATA_DLI_B */

static const char *const structure_sql = "SELECT block FROM fts_data WHERE id = 10";
static const char *const page_sql = "SELECT block FROM fts_data WHERE id = ?1";
/* The page where a word >= ?2 may first appear: FTS5's own seek (fts5IdxSelectStmt). */
static const char *const seek_sql =
    "SELECT pgno >> 1 FROM fts_idx WHERE segid = ?1 AND term <= ?2 ORDER BY term DESC LIMIT 1";

struct segment {
    int64_t id, first, last; /* its leaf pages: first..last, both 0 once a merge emptied it */
};

struct reader {
    maildex_db_t *db;
    sqlite3_stmt *page, *seek;
    const uint8_t *lo; /* '0' + prefix */
    size_t nlo;
    bool exact;        /* the word lo alone, not every word it starts */
    GHashTable *words; /* word (g_malloc'd) -> struct acc */
    bool bad;          /* the index is not laid out as expected */
};

/* An SQLite varint at p (before end) into *v; the bytes it took, 0 when it runs past end. */
static size_t varint(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
    uint64_t x = 0;

    for (size_t i = 0; i < 9 && p + i < end; i++) {
        if (i == 8) {
            *v = (x << 8) | p[i];
            return 9;
        }
        x = (x << 7) | (p[i] & 0x7f);
        if (!(p[i] & 0x80)) {
            *v = x;
            return i + 1;
        }
    }
    return 0;
}

/* The varint at *p, moving *p past it; false when it runs past end. */
static bool take(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    size_t k = varint(*p, end, v);

    *p += k;
    return k > 0;
}

/* The segments, newest first as FTS5 ranks them when two hold an entry for one key (fts5MultiIterNew:
 * level 0 first, and in a level the last segment first); NULL (and bad set) unless the record is the
 * layout above. */
static GArray *read_structure(struct reader *r)
{
    sqlite3_stmt *stmt = NULL;
    GArray *segs = g_array_new(FALSE, FALSE, sizeof(struct segment));
    const uint8_t *p = NULL, *end = NULL;
    uint64_t nlevel = 0, nseg = 0, counter;

    if (sqlite3_prepare_v2(r->db->sql, structure_sql, -1, &stmt, NULL) == SQLITE_OK &&
        sqlite3_step(stmt) == SQLITE_ROW) {
        p = sqlite3_column_blob(stmt, 0);
        end = p + sqlite3_column_bytes(stmt, 0);
    }
    /* after the cookie; a version-2 record (tombstones, SQLite 3.43's contentless_delete) has
     * ff 00 00 01 there */
    r->bad = p == NULL || end - p < 8 || memcmp(p + 4, "\xff\x00\x00\x01", 4) == 0;
    if (!r->bad)
        p += 4;
    r->bad = r->bad || !take(&p, end, &nlevel) || !take(&p, end, &nseg) || !take(&p, end, &counter);
    for (uint64_t l = 0; l < nlevel && !r->bad; l++) {
        uint64_t merging = 0, n = 0, v[3];
        const guint level_start = segs->len;
        r->bad = !take(&p, end, &merging) || !take(&p, end, &n);
        for (uint64_t s = 0; s < n && !r->bad; s++) {
            r->bad = !take(&p, end, &v[0]) || !take(&p, end, &v[1]) || !take(&p, end, &v[2]);
            if (!r->bad) {
                struct segment one = {(int64_t) v[0], (int64_t) v[1], (int64_t) v[2]};
                g_array_insert_val(segs, level_start, one);
            }
        }
    }
    r->bad = r->bad || segs->len != nseg;
    sqlite3_finalize(stmt);
    if (r->bad) {
        g_array_free(segs, TRUE);
        segs = NULL;
    }
    return segs;
}

/* A word of the range, as the pages give it: its doclists' size, and per segment (newest first) a
 * sorted run of the keys it holds and one of the keys whose entry there is a deletion (GArrays of
 * int64_t). */
struct acc {
    int64_t bytes;
    bool deleted;
    GPtrArray *runs, *dead;
};

static void acc_free(gpointer data)
{
    struct acc *a = data;

    g_ptr_array_free(a->runs, TRUE);
    g_ptr_array_free(a->dead, TRUE);
    g_free(a);
}

/* Where one segment's walk is: the word whose doclist is open (NULL when it is not in the range),
 * the run of keys it is adding to, and what the next page continues. */
struct walk {
    struct acc *word;
    GArray *run, *dead;
    bool open;      /* a doclist goes on at the next page */
    int64_t rowid;  /* the last key read */
    uint64_t skip;  /* bytes of a position list still to pass on the next page */
};

static struct acc *word_of(struct reader *r, const uint8_t *w, size_t n)
{
    char *key = g_strndup((const char *) w + 1, n - 1); /* without the index byte */
    struct acc *a = g_hash_table_lookup(r->words, key);

    if (a) {
        g_free(key);
    } else {
        a = g_new0(struct acc, 1);
        a->runs = g_ptr_array_new_with_free_func((GDestroyNotify) g_array_unref);
        a->dead = g_ptr_array_new_with_free_func((GDestroyNotify) g_array_unref);
        g_hash_table_insert(r->words, key, a);
    }
    return a;
}

/* The entries of a doclist from pos to end on page p (szleaf its words' end): key varints (the
 * first absolute when absolute, then deltas), each followed by its position list's size (times two,
 * plus one for a deletion) and the list, which may go on over the next page. An entry flagged as a
 * deletion that has positions replaces the older segments' entries for its key (a row deleted and
 * written again before FTS5 flushed), so it counts as held; one without positions only deletes (as
 * FTS5's fts5MultiIterIsEmpty reads them). Returns false when they do not fit. */
static bool read_entries(struct walk *w, const uint8_t *p, uint64_t pos, uint64_t end, uint64_t szleaf,
                         bool absolute)
{
    if (w->word)
        w->word->bytes += (int64_t) (end - pos);
    while (pos < end) {
        const uint8_t *at = p + pos;
        uint64_t v, npos;
        if (!take(&at, p + end, &v) || !take(&at, p + end, &npos))
            return false;
        w->rowid = absolute ? (int64_t) v : w->rowid + (int64_t) v;
        absolute = false;
        if (w->word && npos == 1) {
            w->word->deleted = true;
            g_array_append_val(w->dead, w->rowid);
        } else if (w->word && npos > 1) {
            g_array_append_val(w->run, w->rowid);
        }
        pos = (uint64_t) (at - p) + (npos >> 1);
        if (pos > end) {
            if (end != szleaf)
                return false; /* a position list runs into the next word */
            w->skip = pos - end;
        }
    }
    return true;
}

/* Starts (or stops, for a word outside the range) the walk's word. */
static void start_word(struct reader *r, struct walk *w, struct acc *word)
{
    w->word = word;
    w->run = w->dead = NULL;
    if (word) {
        w->run = g_array_new(FALSE, FALSE, sizeof(int64_t));
        w->dead = g_array_new(FALSE, FALSE, sizeof(int64_t));
        g_ptr_array_add(word->runs, w->run);
        g_ptr_array_add(word->dead, w->dead);
    }
    (void) r;
}

/* One leaf page: the rest of the open doclist, then each word that starts on the page and its
 * doclist. Returns whether the walk goes on (the page's last word is not past the range). */
static bool read_page(struct reader *r, struct walk *w, int64_t segid, int64_t pgno)
{
    const uint8_t *p, *end, *foot;
    uint8_t word[1024];
    uint64_t offs[512], rowid_off, szleaf, pos = 4, first_word;
    size_t nword = 0, nterms = 0;
    bool more = true;
    int nn;

    sqlite3_reset(r->page);
    sqlite3_bind_int64(r->page, 1, (segid << PAGE_BITS) + pgno);
    if (sqlite3_step(r->page) != SQLITE_ROW || (nn = sqlite3_column_bytes(r->page, 0)) < 4) {
        r->bad = true;
        return false;
    }
    p = sqlite3_column_blob(r->page, 0);
    end = p + nn;
    rowid_off = (uint64_t) ((p[0] << 8) | p[1]);
    szleaf = (uint64_t) ((p[2] << 8) | p[3]);
    if (szleaf > (uint64_t) nn || szleaf < 4) {
        r->bad = true;
        return false;
    }
    for (foot = p + szleaf; foot < end && !r->bad;) {
        uint64_t delta;
        r->bad = !take(&foot, end, &delta) || nterms == G_N_ELEMENTS(offs) ||
                 (offs[nterms] = (nterms ? offs[nterms - 1] : 0) + delta) >= szleaf;
        nterms++;
    }
    first_word = nterms ? offs[0] : szleaf;
    /* the doclist open on the page before: the rest of a position list, then keys from rowid_off */
    if (!r->bad && w->open) {
        const uint64_t pass = MIN(w->skip, szleaf - pos);
        if (w->word)
            w->word->bytes += (int64_t) pass;
        pos += pass;
        w->skip -= pass;
        if (w->skip == 0 && pos < first_word)
            r->bad = rowid_off != pos || !read_entries(w, p, pos, first_word, szleaf, true);
        w->open = w->skip > 0 || (nterms == 0 && (rowid_off || pos == szleaf));
    }
    for (size_t i = 0; i < nterms && more && !r->bad; i++) {
        uint64_t shared = 0, len, stop = i + 1 < nterms ? offs[i + 1] : szleaf;
        const uint8_t *at = p + offs[i];
        if ((i > 0 && !take(&at, end, &shared)) || !take(&at, end, &len) || shared > nword ||
            shared + len > sizeof word || len > (uint64_t) (end - at)) {
            r->bad = true;
            break;
        }
        memcpy(word + shared, at, len);
        nword = shared + len;
        at += len;
        if (nword >= r->nlo && memcmp(word, r->lo, r->nlo) == 0 && (!r->exact || nword == r->nlo)) {
            start_word(r, w, word_of(r, word, nword));
        } else if (memcmp(word, r->lo, MIN(nword, r->nlo)) > 0 || (r->exact && nword > r->nlo &&
                                                                    memcmp(word, r->lo, r->nlo) == 0)) {
            more = false; /* past the range (a word before it, or a prefix of it, compares lower) */
            break;
        } else {
            start_word(r, w, NULL);
        }
        w->skip = 0;
        r->bad = !read_entries(w, p, (uint64_t) (at - p), stop, szleaf, true);
        w->open = stop == szleaf;
    }
    return more && !r->bad;
}

/* The pages of one segment from where the range's first word may be, in order, until a word past
 * the range. */
static void read_segment(struct reader *r, const struct segment *seg)
{
    struct walk w = {0};
    int64_t pgno = seg->first;

    if (seg->last == 0)
        return; /* emptied by a merge */
    sqlite3_reset(r->seek);
    sqlite3_bind_int64(r->seek, 1, seg->id);
    sqlite3_bind_blob(r->seek, 2, r->lo, (int) r->nlo, SQLITE_STATIC);
    if (sqlite3_step(r->seek) == SQLITE_ROW)
        pgno = MAX(sqlite3_column_int64(r->seek, 0), seg->first);
    sqlite3_reset(r->seek);
    while (pgno <= seg->last && read_page(r, &w, seg->id, pgno))
        pgno++;
}

/* The keys of sorted run a that sorted run b does not hold. */
static GArray *minus(const GArray *a, const GArray *b)
{
    GArray *out = g_array_sized_new(FALSE, FALSE, sizeof(int64_t), a->len);
    guint j = 0;

    for (guint i = 0; i < a->len; i++) {
        const int64_t k = g_array_index(a, int64_t, i);
        while (j < b->len && g_array_index(b, int64_t, j) < k)
            j++;
        if (j == b->len || g_array_index(b, int64_t, j) != k)
            g_array_append_val(out, k);
    }
    return out;
}

/* Sorted runs a and b as one (duplicates once). */
static GArray *merged(const GArray *a, const GArray *b)
{
    GArray *out = g_array_sized_new(FALSE, FALSE, sizeof(int64_t), a->len + b->len);
    guint i = 0, j = 0;

    while (i < a->len || j < b->len) {
        const int64_t x = i < a->len ? g_array_index(a, int64_t, i) : INT64_MAX;
        const int64_t y = j < b->len ? g_array_index(b, int64_t, j) : INT64_MAX;
        const int64_t k = x <= y ? x : y;
        if (i < a->len && x == k)
            i++;
        if (j < b->len && y == k)
            j++;
        g_array_append_val(out, k);
    }
    return out;
}

/* With deletions among a word's entries, what FTS5 finds: for each key, the entry of the newest
 * segment that has one. Each segment's held keys lose those a newer segment has an entry for. */
static void apply_deletions(struct acc *a)
{
    GArray *seen = g_array_new(FALSE, FALSE, sizeof(int64_t));

    for (guint s = 0; s < a->runs->len; s++) {
        GArray *held = a->runs->pdata[s], *dead = a->dead->pdata[s];
        GArray *alive = minus(held, seen), *both = merged(held, dead), *wider = merged(seen, both);
        g_array_unref(both);
        g_array_unref(seen);
        seen = wider;
        a->runs->pdata[s] = alive;
        g_array_unref(held);
    }
    g_array_unref(seen);
}

/* A word's keys: its runs (one per segment, each sorted, disjoint once deletions are applied) merged
 * pairwise, balanced. NULL when out of memory. */
static struct maildex__set *keys_of(void *ctx, GPtrArray *runs)
{
    const size_t n = runs->len;
    struct maildex__set **sets = talloc_zero_array(ctx, struct maildex__set *, n + 1), *out;
    bool ok = sets != NULL;

    for (size_t i = 0; ok && i < n; i++) {
        GArray *run = runs->pdata[i];
        ok = (sets[i] = maildex__set_of_ints(sets, (int64_t *) run->data, run->len)) != NULL;
    }
    for (size_t width = 1; ok && width < n; width *= 2)
        for (size_t i = 0; ok && i + width < n; i += 2 * width) {
            struct maildex__set *both = maildex__set_merge(sets, sets[i], sets[i + width], false);
            ok = both != NULL;
            sets[i] = both;
        }
    out = ok ? (n ? sets[0] : maildex__set_of_ints(sets, NULL, 0)) : NULL;
    if (out)
        talloc_steal(ctx, out);
    talloc_free(sets);
    return out;
}

static int by_text(const void *a, const void *b)
{
    return strcmp(((const struct maildex__fts_word *) a)->text, ((const struct maildex__fts_word *) b)->text);
}

static struct maildex__fts_word *read_words(void *ctx, maildex_db_t *db, const char *prefix, size_t len,
                                            bool exact, size_t *n)
{
    struct reader r = {.db = db, .nlo = len + 1, .exact = exact};
    uint8_t *lo = g_malloc(len + 1);
    struct maildex__fts_word *out = NULL;
    GArray *segs = NULL;

    lo[0] = MAIN_INDEX;
    memcpy(lo + 1, prefix, len);
    r.lo = lo;
    r.words = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, acc_free);
    *n = 0;
    if (sqlite3_prepare_v2(db->sql, page_sql, -1, &r.page, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db->sql, seek_sql, -1, &r.seek, NULL) != SQLITE_OK)
        r.bad = true;
    if (!r.bad)
        segs = read_structure(&r);
    for (guint i = 0; segs && i < segs->len && !r.bad; i++)
        read_segment(&r, &g_array_index(segs, struct segment, i));
    if (!r.bad && (out = talloc_array(ctx, struct maildex__fts_word, g_hash_table_size(r.words) + 1))) {
        GHashTableIter it;
        gpointer k, v;
        g_hash_table_iter_init(&it, r.words);
        while (g_hash_table_iter_next(&it, &k, &v)) {
            struct acc *a = v;
            out[*n].text = talloc_strdup(out, k);
            out[*n].bytes = a->bytes;
            if (a->deleted)
                apply_deletions(a);
            out[*n].keys = keys_of(out, a->runs);
            if (out[*n].text == NULL || out[*n].keys == NULL) {
                talloc_free(out);
                out = NULL;
                break;
            }
            (*n)++;
        }
        if (out)
            qsort(out, *n, sizeof *out, by_text);
    }
    if (out == NULL)
        *n = 0;
    if (segs)
        g_array_free(segs, TRUE);
    g_hash_table_destroy(r.words);
    sqlite3_finalize(r.page);
    sqlite3_finalize(r.seek);
    g_free(lo);
    return out;
}

struct maildex__fts_word *maildex__fts_words(void *ctx, maildex_db_t *db, const char *prefix, size_t len,
                                             size_t *n)
{
    return read_words(ctx, db, prefix, len, false, n);
}

struct maildex__set *maildex__fts_word_keys(void *ctx, maildex_db_t *db, const char *word, size_t len)
{
    size_t n;
    struct maildex__fts_word *w = read_words(NULL, db, word, len, true, &n);
    struct maildex__set *keys = NULL;

    if (w && n == 0)
        keys = maildex__set_of_ints(ctx, NULL, 0);
    else if (w)
        keys = talloc_steal(ctx, w[0].keys);
    talloc_free(w);
    return keys;
}
