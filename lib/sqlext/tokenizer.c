/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The "maildex" FTS5 tokenizer: FTS5's unicode61 plus colocated Snowball English stems, and the quoting
 * helpers the query planner builds MATCH strings with (see tokenizer.h for the index layout and the
 * query forms). It wraps unicode61 the way FTS5's own porter tokenizer does (fts5_tokenize.c): the wrapped
 * tokenizer is found through fts5_api.xFindTokenizer when a table is opened.
 *
 * It must stay deterministic: a contentless table deletes a row by re-tokenizing the original text, so the
 * same input must always produce the same tokens. It must not keep state between xTokenize calls other than
 * the stemmer and its cache (a pure function of the token, so it cannot change the output); both are not
 * thread-safe and so belong to one tokenizer instance (FTS5 makes one per table per connection, used by one
 * thread at a time).
 *
 * Tokenizing is a fifth of the writer thread's time, so the indexer records each document's tokens on
 * its parse threads (a recorder: a standalone instance made with the very arguments FTS5 gave this
 * table's tokenizer) and the writer's instance replays them when FTS5 asks it to tokenize text that is
 * byte for byte the text recorded. Anything else -- deletes, merges of duplicate copies, a recorder
 * that failed -- is tokenized here as before, so a replay can never index tokens the text would not
 * give. */
#include "tokenizer.h"
#include "stemmer.h"

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>

/* Snowball costs ~0.25 us a word, most of the tokenizer's time; word frequencies are Zipf-shaped, so a
 * direct-mapped cache of recent stems answers most words (measured: tokenizing 40% faster). 4096 slots are
 * ~530 KB per tokenizer instance, allocated on first use. */
#define STEM_CACHE_SLOTS 4096

struct stem_slot {
    unsigned char ntok, nstem; /* ntok 0: empty */
    char tok[MAILDEX_FTS_MAX_STEM_BYTES];
    char stem[MAILDEX_FTS_MAX_STEM_BYTES];
};

/* One text's tokens as the document tokenizer emits them, recorded for a replay. */
struct recorded_token {
    int tflags, start, end, len;
    size_t offset; /* in the bytes array */
};

struct maildex__fts_tokens {
    const char *text; /* the text recorded (the caller keeps it alive) */
    int ntext;
    struct recorded_token *tokens;
    size_t count, allocated;
    char *bytes;
    size_t used, size;
};

/* Per connection (the tokenizer's user data): what standalone instances need, and the documents
 * the writer is about to insert with their recorded tokens. */
struct maildex__fts_shared {
    fts5_api *api;
    fts5_tokenizer unicode61;
    void *unicode61_user;
    const char **args;  /* the table's tokenizer arguments, once FTS5 has created an instance */
    int nargs;
    struct maildex__fts_tokens *const *replay;
    int replay_count;
};

/* One tokenizer instance: the wrapped unicode61 instance and this instance's stemmer and cache. */
struct fts_tokenizer {
    struct maildex__fts_shared *shared;
    fts5_tokenizer inner_methods;
    Fts5Tokenizer *inner;
    struct maildex__stemmer *stemmer; /* made on the first word to stem (stemmer.h says why) */
    struct stem_slot *cache; /* allocated on first use; NULL if that failed */
    int cache_failed;
};

/* State for one xTokenize call, passed through unicode61 to our xToken wrappers. */
struct emit_ctx {
    struct fts_tokenizer *tok;
    void *fts_ctx;
    int (*xToken)(void *, int, const char *, int, int, int);
    int offset; /* bytes skipped before the text given to unicode61 (the stem marker) */
    const char *text; /* document mode: the text, to see part breaks between two tokens */
    int last_end;     /* document mode: where the previous token ended */
    const char *field; /* in a user-defined field's segment: "\x02PREFIX\x02", put before every token */
    int nfield;
    char *fbuf;        /* field + token, grown as needed (g_free'd at the end of the call) */
    int fcap;
    char buf[1 + MAILDEX_FTS_MAX_STEM_BYTES];
};

typedef int (*token_fn)(void *, int, const char *, int, int, int);

static fts5_api *fts5_api_from_db(sqlite3 *db)
{
    fts5_api *api = NULL;
    sqlite3_stmt *stmt = NULL;

    if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &stmt, NULL) == SQLITE_OK) {
        sqlite3_bind_pointer(stmt, 1, (void *) &api, "fts5_api_ptr", NULL);
        sqlite3_step(stmt);
    }
    sqlite3_finalize(stmt);
    return api;
}

static struct stem_slot *cache_slot(struct fts_tokenizer *tok, const char *t, int n)
{
    uint32_t h = 2166136261u; /* FNV-1a */

    if (!tok->cache && !tok->cache_failed) {
        /* calloc, not talloc_zero: a block this large comes as fresh zero pages that are touched
         * (faulted in) one by one as words land in them, where a memset would fault in all 130 of
         * them for a query that stems one word (0.3 ms). */
        tok->cache = calloc(STEM_CACHE_SLOTS, sizeof *tok->cache);
        tok->cache_failed = !tok->cache; /* run uncached rather than fail */
    }
    if (!tok->cache)
        return NULL;
    for (int i = 0; i < n; i++)
        h = (h ^ (unsigned char) t[i]) * 16777619u;
    return &tok->cache[h % STEM_CACHE_SLOTS];
}

/* The effective stem of a unicode61 token: its Snowball stem, or the token itself when it is too long to
 * stem. Sets *stem (valid until the next call, or tok itself) and *nstem. Returns SQLITE_OK, or
 * SQLITE_NOMEM. */
static int effective_stem(struct fts_tokenizer *tok, const char *t, int n, const char **stem, int *nstem)
{
    struct stem_slot *slot;
    const char *s;
    int ns;

    *stem = t;
    *nstem = n;
    if (n > MAILDEX_FTS_MAX_STEM_BYTES || n <= 0)
        return SQLITE_OK;
    slot = cache_slot(tok, t, n);
    if (slot && slot->ntok == n && memcmp(slot->tok, t, (size_t) n) == 0)
        goto found;
    if (!tok->stemmer && (tok->stemmer = maildex__stemmer_new()) == NULL)
        return SQLITE_ERROR;
    s = maildex__stemmer_stem(tok->stemmer, t, n, &ns);
    if (!s)
        return SQLITE_NOMEM;
    /* English stems never grow, but the buffers must not depend on it. */
    if (ns <= 0 || ns > MAILDEX_FTS_MAX_STEM_BYTES) {
        s = t;
        ns = n;
    }
    if (!slot) {
        *stem = s;
        *nstem = ns;
        return SQLITE_OK;
    }
    slot->ntok = (unsigned char) n;
    slot->nstem = (unsigned char) ns;
    memcpy(slot->tok, t, (size_t) n);
    memcpy(slot->stem, s, (size_t) ns);
found:
    *stem = slot->stem;
    *nstem = slot->nstem;
    return SQLITE_OK;
}

static int same_bytes(const char *a, int na, const char *b, int nb)
{
    return na == nb && memcmp(a, b, (size_t) na) == 0;
}

/* Hands a token to FTS5, inside a user-defined field's segment with the field's prefix before it. */
static int put(struct emit_ctx *c, int tflags, const char *t, int n, int start, int end)
{
    if (c->nfield == 0)
        return c->xToken(c->fts_ctx, tflags, t, n, start, end);
    if (c->nfield + n > c->fcap) {
        char *grown = g_try_realloc(c->fbuf, (size_t) (c->nfield + n) * 2);
        if (grown == NULL)
            return SQLITE_NOMEM;
        c->fbuf = grown;
        c->fcap = (c->nfield + n) * 2;
    }
    memcpy(c->fbuf, c->field, (size_t) c->nfield);
    memcpy(c->fbuf + c->nfield, t, (size_t) n);
    return c->xToken(c->fts_ctx, tflags, c->fbuf, c->nfield + n, start, end);
}

/* Document mode: the token, then its marked stem at the same position when the stem differs. */
static int emit_document(void *p, int tflags, const char *t, int n, int start, int end)
{
    static const char gap[1] = {MAILDEX_FTS_PART_BREAK};
    struct emit_ctx *c = p;
    const char *stem;
    int rc = SQLITE_OK, ns;

    /* Each byte between two tokens is looked at once: the document stays linear. */
    if (start > c->last_end && memchr(c->text + c->last_end, MAILDEX_FTS_PART_BREAK,
                                      (size_t) (start - c->last_end)))
        rc = c->xToken(c->fts_ctx, 0, gap, 1, c->last_end + c->offset, c->last_end + c->offset);
    if (end > c->last_end)
        c->last_end = end;
    start += c->offset;
    end += c->offset;
    if (rc == SQLITE_OK)
        rc = put(c, tflags, t, n, start, end);
    if (rc == SQLITE_OK)
        rc = effective_stem(c->tok, t, n, &stem, &ns);
    if (rc != SQLITE_OK || same_bytes(stem, ns, t, n))
        return rc;
    c->buf[0] = MAILDEX_FTS_STEM_MARKER;
    memcpy(c->buf + 1, stem, (size_t) ns);
    return put(c, FTS5_TOKEN_COLOCATED, c->buf, ns + 1, start, end);
}

/* Stemmed query mode: the synonym set { marker+s, s } for s = stem(t), the plain s only when it is its own
 * stem (a document word equal to s is indexed under stem(s), which must be s to match). A token too long to
 * stem can only match itself. */
static int emit_stemmed_query(void *p, int tflags, const char *t, int n, int start, int end)
{
    struct emit_ctx *c = p;
    const char *stem, *stem2;
    int rc, ns, ns2;

    start += c->offset;
    end += c->offset;
    if (n > MAILDEX_FTS_MAX_STEM_BYTES)
        return put(c, tflags, t, n, start, end);
    rc = effective_stem(c->tok, t, n, &stem, &ns);
    if (rc != SQLITE_OK)
        return rc;
    c->buf[0] = MAILDEX_FTS_STEM_MARKER;
    memcpy(c->buf + 1, stem, (size_t) ns);
    rc = put(c, tflags, c->buf, ns + 1, start, end);
    if (rc == SQLITE_OK)
        rc = effective_stem(c->tok, c->buf + 1, ns, &stem2, &ns2);
    if (rc != SQLITE_OK || !same_bytes(stem2, ns2, c->buf + 1, ns))
        return rc;
    return put(c, FTS5_TOKEN_COLOCATED, c->buf + 1, ns, start, end);
}

/* Exact query mode with the marker skipped (prefix queries): unicode61's tokens, offsets shifted back. */
static int emit_shifted(void *p, int tflags, const char *t, int n, int start, int end)
{
    struct emit_ctx *c = p;

    return put(c, tflags, t, n, start + c->offset, end + c->offset);
}

/* The recorded tokens of exactly this text, if the writer registered some. */
static const struct maildex__fts_tokens *find_replay(const struct maildex__fts_shared *sh,
                                                     const char *text, int ntext)
{
    for (int i = 0; i < sh->replay_count; i++) {
        const struct maildex__fts_tokens *r = sh->replay[i];
        if (r && r->ntext == ntext && (r->text == text || memcmp(r->text, text, (size_t) ntext) == 0))
            return r;
    }
    return NULL;
}

static int replay(const struct maildex__fts_tokens *rec, void *fts_ctx, token_fn xToken)
{
    int rc = SQLITE_OK;

    for (size_t i = 0; i < rec->count && rc == SQLITE_OK; i++) {
        const struct recorded_token *t = &rec->tokens[i];
        rc = xToken(fts_ctx, t->tflags, rec->bytes + t->offset, t->len, t->start, t->end);
    }
    return rc;
}

/* A text of user-defined field segments ("\x02PREFIX\x02value"..., see tokenizer.h): each value
 * through unicode61 with its segment's prefix put before its tokens. A prefix query with an empty value
 * asks for the bare prefix: any word of the field. */
static int tokenize_fields(struct emit_ctx *c, int flags, const char *text, int ntext, token_fn fn)
{
    struct fts_tokenizer *tok = c->tok;
    int rc = SQLITE_OK, base = c->offset, i = 0;

    while (i < ntext && rc == SQLITE_OK) {
        const char *name_end = memchr(text + i + 1, MAILDEX_FTS_FIELD_MARKER, (size_t) (ntext - i - 1));
        int value = name_end ? (int) (name_end - text) + 1 : ntext;
        const char *next = memchr(text + value, MAILDEX_FTS_FIELD_MARKER, (size_t) (ntext - value));
        int value_end = next ? (int) (next - text) : ntext;

        c->field = text + i;
        c->nfield = value - i;
        c->offset = base + value;
        c->text = text + value;
        c->last_end = 0;
        if (value == value_end && (flags & FTS5_TOKENIZE_PREFIX))
            rc = c->xToken(c->fts_ctx, 0, c->field, c->nfield, base + i, base + value);
        else if (value < value_end)
            rc = tok->inner_methods.xTokenize(tok->inner, c, flags, text + value, value_end - value, fn);
        i = value_end;
    }
    return rc;
}

static int fts_tokenize(Fts5Tokenizer *p, void *fts_ctx, int flags, const char *text, int ntext,
                        token_fn xToken)
{
    struct fts_tokenizer *tok = (struct fts_tokenizer *) p;
    struct emit_ctx c = {.tok = tok, .fts_ctx = fts_ctx, .xToken = xToken};
    int marked = ntext > 0 && text[0] == MAILDEX_FTS_STEM_MARKER, rc;
    token_fn fn;

    if (flags & FTS5_TOKENIZE_DOCUMENT) {
        const struct maildex__fts_tokens *recorded = tok->shared ? find_replay(tok->shared, text, ntext)
                                                                 : NULL;
        if (recorded)
            return replay(recorded, fts_ctx, xToken);
        fn = emit_document;
        c.text = text;
    } else if ((flags & FTS5_TOKENIZE_QUERY) && marked) {
        /* A stemmed prefix ("\x01plan"*) would only add stems that start with "plan"; exact prefixes
         * already find every word those stems came from. */
        fn = (flags & FTS5_TOKENIZE_PREFIX) ? emit_shifted : emit_stemmed_query;
        c.offset = 1;
        text++;
        ntext--;
    } else if ((flags & FTS5_TOKENIZE_QUERY) && ntext > 0 && text[0] == MAILDEX_FTS_FIELD_MARKER) {
        fn = emit_shifted;
    } else {
        /* Exact queries and FTS5_TOKENIZE_AUX (highlight, snippet): plain tokens, same positions. */
        return tok->inner_methods.xTokenize(tok->inner, fts_ctx, flags, text, ntext, xToken);
    }
    if (ntext > 0 && text[0] == MAILDEX_FTS_FIELD_MARKER)
        rc = tokenize_fields(&c, flags, text, ntext, fn);
    else
        rc = tok->inner_methods.xTokenize(tok->inner, &c, flags, text, ntext, fn);
    g_free(c.fbuf);
    return rc;
}

static int fts_tokenizer_destructor(struct fts_tokenizer *tok)
{
    if (tok->inner)
        tok->inner_methods.xDelete(tok->inner);
    maildex__stemmer_free(tok->stemmer);
    free(tok->cache);
    return 0;
}

static void fts_delete(Fts5Tokenizer *p)
{
    talloc_free(p);
}

/* Arguments for unicode61: ours first, so the table's own arguments (which come later) win. A "\x01" in an
 * argument (tokenchars) would let documents forge stems, so it is refused. */
static const char **inner_args(void *ctx, const char **argv, int argc, int *nout)
{
    const char **args = talloc_array(ctx, const char *, (size_t) argc + 2);

    if (!args)
        return NULL;
    args[0] = "remove_diacritics";
    args[1] = "2";
    for (int i = 0; i < argc; i++) {
        if (strchr(argv[i], MAILDEX_FTS_STEM_MARKER) || strchr(argv[i], MAILDEX_FTS_FIELD_MARKER))
            return NULL;
        args[i + 2] = argv[i];
    }
    *nout = argc + 2;
    return args;
}

/* A tokenizer instance over unicode61 with the table's arguments argv. */
static int make_instance(struct maildex__fts_shared *sh, const char **argv, int argc,
                         struct fts_tokenizer **out)
{
    struct fts_tokenizer *tok = talloc_zero(NULL, struct fts_tokenizer);
    const char **args;
    int rc = SQLITE_NOMEM, nargs = 0;

    *out = NULL;
    if (!tok)
        goto done;
    talloc_set_destructor(tok, fts_tokenizer_destructor);
    tok->inner_methods = sh->unicode61;
    rc = SQLITE_ERROR;
    args = inner_args(tok, argv, argc, &nargs);
    if (!args)
        goto done;
    rc = tok->inner_methods.xCreate(sh->unicode61_user, args, nargs, &tok->inner);
    talloc_free(args);
    if (rc != SQLITE_OK)
        tok->inner = NULL; /* unicode61 cleans up after itself */
    if (rc == SQLITE_OK) {
        *out = tok;
        tok = NULL;
    }
done:
    talloc_free(tok);
    return rc;
}

static int fts_create(void *user, const char **argv, int argc, Fts5Tokenizer **out)
{
    struct maildex__fts_shared *sh = user;
    struct fts_tokenizer *tok = NULL;
    int rc = make_instance(sh, argv, argc, &tok);

    *out = (Fts5Tokenizer *) tok;
    if (rc != SQLITE_OK)
        return rc;
    tok->shared = sh;
    /* Recorders must tokenize as this table does: keep its arguments (the first table wins; the
     * schema has one). */
    if (sh->args == NULL) {
        const char **args = talloc_array(sh, const char *, (size_t) argc + 1);
        for (int i = 0; args && i < argc; i++)
            if ((args[i] = talloc_strdup(args, argv[i])) == NULL) {
                talloc_free(args);
                args = NULL;
            }
        if (args) {
            sh->args = args;
            sh->nargs = argc;
        }
    }
    return SQLITE_OK;
}

static void shared_destroy(void *p)
{
    talloc_free(p);
}

int maildex__fts_tokenizer_register(sqlite3 *db, struct maildex__fts_shared **out)
{
    static fts5_tokenizer methods = {fts_create, fts_delete, fts_tokenize};
    fts5_api *api = fts5_api_from_db(db);
    struct maildex__fts_shared *sh;
    int rc;

    if (out)
        *out = NULL;
    /* xFindTokenizer and the v2 layout we rely on appeared in iVersion 2. */
    if (!api || api->iVersion < 2)
        return SQLITE_ERROR;
    sh = talloc_zero(NULL, struct maildex__fts_shared);
    if (!sh)
        return SQLITE_NOMEM;
    sh->api = api;
    rc = api->xFindTokenizer(api, "unicode61", &sh->unicode61_user, &sh->unicode61);
    if (rc != SQLITE_OK) {
        talloc_free(sh);
        return rc;
    }
    /* sh lives as long as the connection (SQLite calls shared_destroy when it closes), and so does
     * every tokenizer made from it. */
    rc = api->xCreateTokenizer(api, MAILDEX_FTS_TOKENIZER_NAME, sh, &methods, shared_destroy);
    if (rc == SQLITE_OK && out)
        *out = sh;
    return rc;
}

/* ---- a term's index tokens ---------------------------------------------------------------------------- */

struct term_tokens {
    void *ctx;
    GPtrArray *out; /* char * on ctx */
    bool phrase;    /* a token at a second position */
    bool failed;
};

static int collect_token(void *p, int tflags, const char *t, int n, int start, int end)
{
    struct term_tokens *c = p;
    char *copy;

    (void) start, (void) end;
    if (c->out->len > 0 && !(tflags & FTS5_TOKEN_COLOCATED))
        c->phrase = true;
    if (n <= 0 || memchr(t, '\0', (size_t) n) || (copy = talloc_strndup(c->ctx, t, (size_t) n)) == NULL)
        c->failed = true;
    else
        g_ptr_array_add(c->out, copy);
    return SQLITE_OK;
}

char **maildex__fts_query_tokens(void *ctx, struct maildex__fts_shared *sh, const char *literal)
{
    struct fts_tokenizer *tok = NULL;
    struct term_tokens c = {.ctx = ctx, .out = g_ptr_array_new()};
    const size_t nlit = literal ? strlen(literal) : 0;
    char *text = NULL, *q;
    char **out = NULL;

    /* only a literal as quote() makes it, without a tail: '"' ... '"' with its quotes doubled */
    if (sh == NULL || sh->args == NULL || nlit < 3 || literal[0] != '"' || literal[nlit - 1] != '"' ||
        (text = talloc_size(NULL, nlit)) == NULL)
        goto done;
    q = text;
    for (size_t i = 1; i + 1 < nlit; i++) {
        *q++ = literal[i];
        if (literal[i] == '"' && literal[++i] != '"')
            goto done;
    }
    *q = '\0';
    if (make_instance(sh, sh->args, sh->nargs, &tok) != SQLITE_OK ||
        fts_tokenize((Fts5Tokenizer *) tok, &c, FTS5_TOKENIZE_QUERY, text, (int) (q - text), collect_token) !=
            SQLITE_OK ||
        c.phrase || c.failed || c.out->len == 0)
        goto done;
    if ((out = talloc_zero_array(ctx, char *, c.out->len + 1)) != NULL)
        for (guint i = 0; i < c.out->len; i++)
            out[i] = talloc_steal(out, c.out->pdata[i]);
done:
    if (out == NULL)
        for (guint i = 0; i < c.out->len; i++)
            talloc_free(c.out->pdata[i]);
    g_ptr_array_free(c.out, TRUE);
    talloc_free(tok);
    talloc_free(text);
    return out;
}

/* ---- recording on other threads, replaying on the writer's --------------------------------------- */

struct maildex__fts_recorder *maildex__fts_recorder_new(struct maildex__fts_shared *sh)
{
    struct fts_tokenizer *tok = NULL;

    if (sh == NULL || sh->args == NULL)
        return NULL;
    if (make_instance(sh, sh->args, sh->nargs, &tok) != SQLITE_OK)
        return NULL;
    return (struct maildex__fts_recorder *) tok;
}

void maildex__fts_recorder_free(struct maildex__fts_recorder *rec)
{
    talloc_free(rec);
}

static int grow(void *ctx, void **array, size_t *allocated, size_t need, size_t elem)
{
    size_t n = *allocated ? *allocated : 64;
    void *bigger;

    if (need <= *allocated)
        return SQLITE_OK;
    while (n < need)
        n *= 2;
    bigger = talloc_realloc_size(ctx, *array, n * elem);
    if (!bigger)
        return SQLITE_NOMEM;
    *array = bigger;
    *allocated = n;
    return SQLITE_OK;
}

static int record_token(void *p, int tflags, const char *t, int n, int start, int end)
{
    struct maildex__fts_tokens *rec = p;
    struct recorded_token *tok;

    if (n < 0 ||
        grow(rec, (void **) &rec->tokens, &rec->allocated, rec->count + 1, sizeof *rec->tokens) ||
        grow(rec, (void **) &rec->bytes, &rec->size, rec->used + (size_t) n + 1, 1))
        return SQLITE_NOMEM;
    tok = &rec->tokens[rec->count++];
    *tok = (struct recorded_token){tflags, start, end, n, rec->used};
    memcpy(rec->bytes + rec->used, t, (size_t) n);
    rec->used += (size_t) n;
    return SQLITE_OK;
}

struct maildex__fts_tokens *maildex__fts_record(void *ctx, struct maildex__fts_recorder *recorder,
                                                const char *text)
{
    struct maildex__fts_tokens *rec = talloc_zero(ctx, struct maildex__fts_tokens);
    struct fts_tokenizer *tok = (struct fts_tokenizer *) recorder;

    if (rec == NULL || tok == NULL || text == NULL)
        goto fail;
    rec->text = text;
    rec->ntext = (int) strlen(text);
    if (fts_tokenize((Fts5Tokenizer *) tok, rec, FTS5_TOKENIZE_DOCUMENT, text, rec->ntext,
                     record_token) != SQLITE_OK)
        goto fail;
    /* Recorded tokens may wait for the end of a batch (message/text-queue.h): give back the doubling's
     * slack (shrinking in place; a failure keeps the larger block). */
    if (rec->count > 0 && rec->count < rec->allocated) {
        void *fit = talloc_realloc_size(rec, rec->tokens, rec->count * sizeof *rec->tokens);
        if (fit) {
            rec->tokens = fit;
            rec->allocated = rec->count;
        }
    }
    return rec;
fail:
    talloc_free(rec);
    return NULL;
}

void maildex__fts_replay_set(struct maildex__fts_shared *sh, struct maildex__fts_tokens *const *tokens,
                             int count)
{
    if (sh == NULL)
        return;
    sh->replay = tokens;
    sh->replay_count = count;
}

static size_t quoted_len(const char *s)
{
    size_t n = 0;

    for (; s && *s; s++)
        n += *s == '"' ? 2 : 1;
    return n;
}

/* Appends s with its quotes doubled and the markers blanked (a value cannot forge a stem or a field). */
static char *append_quoted(char *p, const char *s)
{
    for (; *s; s++) {
        *p++ = *s == MAILDEX_FTS_STEM_MARKER || *s == MAILDEX_FTS_FIELD_MARKER ? ' ' : *s;
        if (*s == '"')
            *p++ = '"';
    }
    return p;
}

/* Builds '"' + [marker] + [field segment] + text + '"' + tail. */
static const char *quote(void *ctx, const char *text, int stemmed, const char *field, const char *tail)
{
    char *out, *p;

    if (!text)
        return NULL;
    out = talloc_size(ctx, quoted_len(text) + quoted_len(field) + 5 + (size_t) stemmed + strlen(tail));
    if (!out)
        return NULL;
    p = out;
    *p++ = '"';
    /* Inside the literal, so the tokenizer sees the marker as the string's first byte. */
    if (stemmed)
        *p++ = MAILDEX_FTS_STEM_MARKER;
    if (field) {
        *p++ = MAILDEX_FTS_FIELD_MARKER;
        p = append_quoted(p, field);
        *p++ = MAILDEX_FTS_FIELD_MARKER;
    }
    p = append_quoted(p, text);
    *p++ = '"';
    strcpy(p, tail);
    talloc_set_name_const(out, "fts match string");
    return out;
}

char *maildex__fts_fold(const char *text)
{
    char *lower = g_utf8_strdown(text, -1), *nfd = g_utf8_normalize(lower, -1, G_NORMALIZE_NFD);
    GString *out = g_string_new(NULL);

    for (const char *s = nfd ? nfd : ""; *s; s = g_utf8_next_char(s)) {
        gunichar c = g_utf8_get_char(s);
        if (g_unichar_type(c) != G_UNICODE_NON_SPACING_MARK)
            g_string_append_unichar(out, c);
    }
    g_free(nfd);
    g_free(lower);
    return g_string_free(out, FALSE);
}

const char *maildex__fts_match_quote(void *ctx, const char *text)
{
    return quote(ctx, text, 0, NULL, "");
}

const char *maildex__fts_match_stemmed(void *ctx, const char *text)
{
    return quote(ctx, text, 1, NULL, "");
}

const char *maildex__fts_match_prefix(void *ctx, const char *text)
{
    return quote(ctx, text, 0, NULL, "*");
}

const char *maildex__fts_match_field(void *ctx, const char *field, const char *text,
                                     enum maildex__fts_match_kind kind)
{
    return quote(ctx, text, kind == MAILDEX_FTS_STEMMED, field, kind == MAILDEX_FTS_PREFIX ? "*" : "");
}
