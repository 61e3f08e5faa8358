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
/* The later pages where words start, in order. */
static const char *const pages_sql =
    "SELECT pgno >> 1 FROM fts_idx WHERE segid = ?1 AND term > ?2 ORDER BY term";

struct segment {
    int64_t id, first, last; /* its leaf pages: first..last, both 0 once a merge emptied it */
};

struct reader {
    maildex_db_t *db;
    sqlite3_stmt *page, *seek, *pages;
    const uint8_t *lo; /* '0' + prefix */
    size_t nlo;
    GHashTable *words; /* word (g_malloc'd) -> bytes (int64_t *, g_malloc'd) */
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

/* The segments; NULL (and bad set) unless the record is the layout
 * above. */
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
        r->bad = !take(&p, end, &merging) || !take(&p, end, &n);
        for (uint64_t s = 0; s < n && !r->bad; s++) {
            r->bad = !take(&p, end, &v[0]) || !take(&p, end, &v[1]) || !take(&p, end, &v[2]);
            if (!r->bad) {
                struct segment one = {(int64_t) v[0], (int64_t) v[1], (int64_t) v[2]};
                g_array_append_val(segs, one);
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

static void add_word(struct reader *r, const uint8_t *w, size_t n, int64_t bytes)
{
    char *key = g_strndup((const char *) w + 1, n - 1); /* without the index byte */
    int64_t *sum = g_hash_table_lookup(r->words, key);

    if (sum) {
        *sum += bytes;
        g_free(key);
    } else {
        sum = g_new(int64_t, 1);
        *sum = bytes;
        g_hash_table_insert(r->words, key, sum);
    }
}

/* The words of one leaf page in the prefix's range; continues (the page's last word is in the range
 * or before it) or not (a word after the range was met). gap: bytes of the pages up to the next page
 * where a word starts, where the page's last doclist goes on. */
static bool read_page(struct reader *r, int64_t segid, int64_t pgno, int64_t gap)
{
    const uint8_t *p, *end, *foot;
    uint8_t word[1024];
    size_t nword = 0;
    uint64_t off = 0, szleaf;
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
    szleaf = (uint64_t) ((p[2] << 8) | p[3]);
    foot = p + szleaf;
    if (foot > end || szleaf < 4) {
        r->bad = true;
        return false;
    }
    for (int i = 0; foot < end && more; i++) {
        uint64_t delta, shared = 0, len, next;
        const uint8_t *w;
        size_t k = varint(foot, end, &delta);
        if (k == 0) {
            r->bad = true;
            break;
        }
        foot += k;
        off += delta;
        w = p + off;
        if (off >= szleaf || (i > 0 && !take(&w, end, &shared)) || !take(&w, end, &len) || shared > nword ||
            shared + len > sizeof word || len > (uint64_t) (end - w)) {
            r->bad = true;
            break;
        }
        memcpy(word + shared, w, len);
        nword = shared + len;
        /* how far this word's doclist reaches: the next word's offset, else the end of the page's
         * words and the pages after it */
        if (foot < end && varint(foot, end, &next))
            next += off;
        else
            next = szleaf + (uint64_t) gap;
        if (nword >= r->nlo && memcmp(word, r->lo, r->nlo) == 0)
            add_word(r, word, nword, (int64_t) (next - off));
        else if (memcmp(word, r->lo, MIN(nword, r->nlo)) > 0)
            more = false; /* past the range (a word before it, or a prefix of it, compares lower) */
    }
    return more && !r->bad;
}

/* The pages of one segment where words of the range start, read in order. */
static void read_segment(struct reader *r, const struct segment *seg)
{
    int64_t first = seg->first, last = seg->last, pgno = first, next;
    bool more = true, have_next;

    if (last == 0)
        return; /* emptied by a merge */
    sqlite3_reset(r->seek);
    sqlite3_bind_int64(r->seek, 1, seg->id);
    sqlite3_bind_blob(r->seek, 2, r->lo, (int) r->nlo, SQLITE_STATIC);
    if (sqlite3_step(r->seek) == SQLITE_ROW)
        pgno = MAX(sqlite3_column_int64(r->seek, 0), first);
    sqlite3_reset(r->seek);
    sqlite3_reset(r->pages);
    sqlite3_bind_int64(r->pages, 1, seg->id);
    sqlite3_bind_blob(r->pages, 2, r->lo, (int) r->nlo, SQLITE_STATIC);
    do {
        next = last + 1;
        while ((have_next = sqlite3_step(r->pages) == SQLITE_ROW) &&
               (next = sqlite3_column_int64(r->pages, 0)) <= pgno)
            ;
        if (!have_next || next > last)
            next = last + 1;
        more = read_page(r, seg->id, pgno, (next - pgno - 1) * 4000);
        pgno = next;
    } while (more && pgno <= last && have_next);
    sqlite3_reset(r->pages);
}

static int by_text(const void *a, const void *b)
{
    return strcmp(((const struct maildex__fts_word *) a)->text, ((const struct maildex__fts_word *) b)->text);
}

struct maildex__fts_word *maildex__fts_words(void *ctx, maildex_db_t *db, const char *prefix, size_t len,
                                             size_t *n)
{
    struct reader r = {.db = db, .nlo = len + 1};
    uint8_t *lo = g_malloc(len + 1);
    struct maildex__fts_word *out = NULL;
    GArray *segs = NULL;

    lo[0] = MAIN_INDEX;
    memcpy(lo + 1, prefix, len);
    r.lo = lo;
    r.words = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    *n = 0;
    if (sqlite3_prepare_v2(db->sql, page_sql, -1, &r.page, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db->sql, seek_sql, -1, &r.seek, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db->sql, pages_sql, -1, &r.pages, NULL) != SQLITE_OK)
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
            out[*n].text = talloc_strdup(out, k);
            out[*n].bytes = *(int64_t *) v;
            if (out[*n].text == NULL) {
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
    sqlite3_finalize(r.pages);
    g_free(lo);
    return out;
}
