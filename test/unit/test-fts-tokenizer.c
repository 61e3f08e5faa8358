/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests for the "maildex" FTS5 tokenizer (lib/sqlext/tokenizer.c): the token streams it emits, and which
 * rows exact, stemmed, phrase, prefix and column queries find in an in-memory FTS5 table. */
#include "sqlext/tokenizer.h"
#include "test.h"

#include <stdlib.h>
#include <talloc.h>

/* ---- helpers ---------------------------------------------------------------------------------------- */

/* A talloc destructor must not longjmp, so a failed close (a statement left unfinalized) is reported here. */
static int close_db(sqlite3 **dbp)
{
    if (sqlite3_close(*dbp) != SQLITE_OK) {
        printf("# sqlite3_close: %s\n", sqlite3_errmsg(*dbp));
        test__failed = 1;
    }
    return 0;
}

/* An in-memory database with the tokenizer registered (*sh: its state, when sh is not NULL). Closed
 * when ctx is freed. */
static sqlite3 *connect_db(void *ctx, struct maildex__fts_shared **sh)
{
    sqlite3 **dbp = talloc(ctx, sqlite3 *);

    ASSERT(dbp);
    ASSERT_EQ(sqlite3_open(":memory:", dbp), SQLITE_OK);
    talloc_set_destructor(dbp, close_db);
    ASSERT_EQ(maildex__fts_tokenizer_register(*dbp, sh), SQLITE_OK);
    return *dbp;
}

/* connect_db with table t(subject, body) created with the given extra options (e.g. ", content=''"). */
static sqlite3 *open_db(void *ctx, const char *options)
{
    sqlite3 *db = connect_db(ctx, NULL);
    char *sql = talloc_asprintf(ctx, "CREATE VIRTUAL TABLE t USING fts5(subject, body, tokenize='maildex'%s)",
                                options ? options : "");

    ASSERT_EQ(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    return db;
}

static void insert(sqlite3 *db, sqlite3_int64 rowid, const char *subject, const char *body)
{
    sqlite3_stmt *stmt;

    ASSERT_EQ(sqlite3_prepare_v2(db, "INSERT INTO t(rowid, subject, body) VALUES (?, ?, ?)", -1, &stmt,
                                 NULL),
              SQLITE_OK);
    sqlite3_bind_int64(stmt, 1, rowid);
    sqlite3_bind_text(stmt, 2, subject, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 3, body, -1, SQLITE_STATIC);
    sqlite3_step(stmt);
    ASSERT_EQ(sqlite3_finalize(stmt), SQLITE_OK);
}

/* The rowids matching a MATCH string, ascending, space separated ("" for none, "error" on an error). */
static const char *matches(void *ctx, sqlite3 *db, const char *match)
{
    sqlite3_stmt *stmt;
    char *out = talloc_strdup(ctx, "");
    int rc;

    ASSERT(match);
    ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT rowid FROM t WHERE t MATCH ? ORDER BY rowid", -1, &stmt, NULL),
              SQLITE_OK);
    sqlite3_bind_text(stmt, 1, match, -1, SQLITE_STATIC);
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW)
        out = talloc_asprintf_append(out, "%s%lld", *out ? " " : "", sqlite3_column_int64(stmt, 0));
    if (sqlite3_finalize(stmt) != SQLITE_OK || rc != SQLITE_DONE)
        out = talloc_strdup(ctx, "error");
    return out;
}

static const char *exact(void *ctx, sqlite3 *db, const char *word)
{
    return matches(ctx, db, maildex__fts_match_quote(ctx, word));
}

static const char *stemmed(void *ctx, sqlite3 *db, const char *word)
{
    return matches(ctx, db, maildex__fts_match_stemmed(ctx, word));
}

static void integrity_check(sqlite3 *db)
{
    sqlite3_stmt *stmt;

    ASSERT_EQ(sqlite3_exec(db, "INSERT INTO t(t) VALUES('integrity-check')", NULL, NULL, NULL), SQLITE_OK);
    ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &stmt, NULL), SQLITE_OK);
    ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
    ASSERT_STR_EQ((const char *) sqlite3_column_text(stmt, 0), "ok");
    sqlite3_finalize(stmt);
}

/* Records a token stream as text: tokens separated by spaces, a colocated one written "=tok", the stem
 * marker written "^". Appends in place: streams of 20,000 words must stay linear. */
struct recorder {
    char *out;
    size_t len, cap;
};

static int record_bytes(struct recorder *r, const char *bytes, size_t n)
{
    if (r->len + n + 1 > r->cap) {
        size_t cap = (r->len + n + 1) * 2;
        char *grown = talloc_realloc(NULL, r->out, char, cap);
        if (!grown)
            return SQLITE_NOMEM;
        r->out = grown;
        r->cap = cap;
    }
    memcpy(r->out + r->len, bytes, n);
    r->len += n;
    r->out[r->len] = '\0';
    return SQLITE_OK;
}

static int record_token(void *p, int tflags, const char *tok, int n, int start, int end)
{
    struct recorder *r = p;
    int rc = SQLITE_OK;

    (void) start, (void) end;
    if (r->len)
        rc = record_bytes(r, " ", 1);
    if (rc == SQLITE_OK && (tflags & FTS5_TOKEN_COLOCATED))
        rc = record_bytes(r, "=", 1);
    for (int i = 0; rc == SQLITE_OK && i < n; i++)
        rc = record_bytes(r, tok[i] == MAILDEX_FTS_STEM_MARKER    ? "^"
                             : tok[i] == MAILDEX_FTS_FIELD_MARKER ? "|"
                                                                  : &tok[i],
                          1);
    return rc;
}

/* Tokenizes text `passes` times with one tokenizer instance; returns the last pass's stream. */
static const char *tokens_passes(void *ctx, sqlite3 *db, int flags, const char *text, int passes)
{
    fts5_api *api = NULL;
    sqlite3_stmt *stmt;
    fts5_tokenizer methods;
    Fts5Tokenizer *tok;
    void *user;
    struct recorder r = {NULL, 0, 0};

    ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &stmt, NULL), SQLITE_OK);
    sqlite3_bind_pointer(stmt, 1, (void *) &api, "fts5_api_ptr", NULL);
    sqlite3_step(stmt);
    sqlite3_finalize(stmt);
    ASSERT(api);
    ASSERT_EQ(api->xFindTokenizer(api, MAILDEX_FTS_TOKENIZER_NAME, &user, &methods), SQLITE_OK);
    ASSERT_EQ(methods.xCreate(user, NULL, 0, &tok), SQLITE_OK);
    for (int i = 0; i < passes; i++) {
        r.len = 0;
        ASSERT_EQ(record_bytes(&r, "", 0), SQLITE_OK);
        ASSERT_EQ(methods.xTokenize(tok, &r, flags, text, (int) strlen(text), record_token), SQLITE_OK);
    }
    methods.xDelete(tok);
    return talloc_steal(ctx, r.out);
}

static const char *tokens(void *ctx, sqlite3 *db, int flags, const char *text)
{
    return tokens_passes(ctx, db, flags, text, 1);
}

/* n distinct lower-case words, most with an inflection, so that stems differ and cache slots collide. */
static char *word_list(void *ctx, int n, int seed)
{
    static const char *suffix[] = {"", "s", "ing", "ed", "ies", "ation", "ly"};
    struct recorder r = {NULL, 0, 0};

    for (int i = 0; i < n; i++) {
        char w[16];
        int v = i * 7919 + seed, len = 0;
        do {
            w[len++] = (char) ('a' + v % 26);
            v /= 26;
        } while (v && len < 6);
        ASSERT_EQ(record_bytes(&r, w, (size_t) len), SQLITE_OK);
        ASSERT_EQ(record_bytes(&r, suffix[i % 7], strlen(suffix[i % 7])), SQLITE_OK);
        ASSERT_EQ(record_bytes(&r, " ", 1), SQLITE_OK);
    }
    return talloc_steal(ctx, r.out);
}

/* Rows shared by the word tests. */
static sqlite3 *plan_db(void *ctx)
{
    sqlite3 *db = open_db(ctx, NULL);

    insert(db, 1, "Lunch plans", "see you at noon");
    insert(db, 2, "Planning meeting", "agenda attached");
    insert(db, 3, "The plan", "nothing else");
    insert(db, 4, "plans for lunch", "planned lunches");
    insert(db, 5, "Planet news", "plane tickets");
    return db;
}

/* ---- token streams ---------------------------------------------------------------------------------- */

TEST(document_tokens_have_colocated_stems)
{
    void *ctx = talloc_new(NULL);
    sqlite3 *db = open_db(ctx, NULL);

    ASSERT_STR_EQ(tokens(ctx, db, FTS5_TOKENIZE_DOCUMENT, "Plans, planning; PLAN news"),
                  "plans =^plan planning =^plan plan news");
    ASSERT_STR_EQ(tokens(ctx, db, FTS5_TOKENIZE_AUX, "Plans planning"), "plans planning");
    talloc_free(ctx);
}

TEST(query_tokens)
{
    void *ctx = talloc_new(NULL);
    sqlite3 *db = open_db(ctx, NULL);

    ASSERT_STR_EQ(tokens(ctx, db, FTS5_TOKENIZE_QUERY, "Plans"), "plans");
    ASSERT_STR_EQ(tokens(ctx, db, FTS5_TOKENIZE_QUERY, "\x01Plans lunch"), "^plan =plan ^lunch =lunch");
    /* Snowball is not idempotent: agreed -> agre -> agr, so the plain "agre" is no alternative. */
    ASSERT_STR_EQ(tokens(ctx, db, FTS5_TOKENIZE_QUERY, "\x01" "agreed"), "^agre");
    ASSERT_STR_EQ(tokens(ctx, db, FTS5_TOKENIZE_QUERY | FTS5_TOKENIZE_PREFIX, "\x01Plan"), "plan");
    ASSERT_STR_EQ(tokens(ctx, db, FTS5_TOKENIZE_QUERY, "\x01"), "");
    talloc_free(ctx);
}

TEST(stem_cache_is_transparent)
{
    void *ctx = talloc_new(NULL);
    sqlite3 *db = open_db(ctx, NULL);
    char *words = word_list(ctx, 20000, 3);
    const char *cold = tokens(ctx, db, FTS5_TOKENIZE_DOCUMENT, words);

    /* The second pass is served from a cache the first pass filled and evicted from. */
    ASSERT_STR_EQ(tokens_passes(ctx, db, FTS5_TOKENIZE_DOCUMENT, words, 2), cold);
    ASSERT(strstr(cold, " =^"));
    talloc_free(ctx);
}

/* ---- word queries ----------------------------------------------------------------------------------- */

TEST(stemmed_plan_finds_all_forms)
{
    void *ctx = talloc_new(NULL);
    sqlite3 *db = plan_db(ctx);

    ASSERT_STR_EQ(stemmed(ctx, db, "plan"), "1 2 3 4");
    ASSERT_STR_EQ(stemmed(ctx, db, "plans"), "1 2 3 4");
    ASSERT_STR_EQ(stemmed(ctx, db, "planning"), "1 2 3 4");
    ASSERT_STR_EQ(stemmed(ctx, db, "lunch"), "1 4");
    ASSERT_STR_EQ(stemmed(ctx, db, "planet"), "5");
    talloc_free(ctx);
}

TEST(exact_plan_finds_only_plan)
{
    void *ctx = talloc_new(NULL);
    sqlite3 *db = plan_db(ctx);

    ASSERT_STR_EQ(exact(ctx, db, "plan"), "3");
    ASSERT_STR_EQ(exact(ctx, db, "lunches"), "4");
    talloc_free(ctx);
}

TEST(exact_plans_finds_plans)
{
    void *ctx = talloc_new(NULL);
    sqlite3 *db = plan_db(ctx);

    ASSERT_STR_EQ(exact(ctx, db, "plans"), "1 4");
    ASSERT_STR_EQ(exact(ctx, db, "planning"), "2");
    talloc_free(ctx);
}

TEST(non_idempotent_stem_matches_like_xapian)
{
    void *ctx = talloc_new(NULL);
    sqlite3 *db = open_db(ctx, NULL);

    insert(db, 1, "we agreed", "");
    insert(db, 2, "agre", ""); /* indexed under stem agr, not agre */
    insert(db, 3, "agree", "");
    ASSERT_STR_EQ(stemmed(ctx, db, "agreed"), "1 3");
    ASSERT_STR_EQ(stemmed(ctx, db, "agre"), "2");
    talloc_free(ctx);
}

TEST(case_insensitive)
{
    void *ctx = talloc_new(NULL);
    sqlite3 *db = plan_db(ctx);

    ASSERT_STR_EQ(exact(ctx, db, "PLANS"), "1 4");
    ASSERT_STR_EQ(exact(ctx, db, "Plan"), "3");
    ASSERT_STR_EQ(stemmed(ctx, db, "PLANNING"), "1 2 3 4");
    talloc_free(ctx);
}

TEST(diacritics_folded)
{
    void *ctx = talloc_new(NULL);
    sqlite3 *db = open_db(ctx, NULL);

    insert(db, 1, "Café society", "");
    insert(db, 2, "cafes", "");
    ASSERT_STR_EQ(exact(ctx, db, "cafe"), "1");
    ASSERT_STR_EQ(exact(ctx, db, "café"), "1");
    ASSERT_STR_EQ(exact(ctx, db, "CAFÉ"), "1");
    ASSERT_STR_EQ(stemmed(ctx, db, "cafés"), "1 2");
    talloc_free(ctx);
}

/* ---- phrases, prefixes, columns --------------------------------------------------------------------- */

TEST(phrase_is_adjacent_and_unstemmed)
{
    void *ctx = talloc_new(NULL);
    sqlite3 *db = plan_db(ctx);

    ASSERT_STR_EQ(exact(ctx, db, "lunch plans"), "1");
    ASSERT_STR_EQ(exact(ctx, db, "lunch plan"), "");
    ASSERT_STR_EQ(exact(ctx, db, "plans for lunch"), "4");
    ASSERT_STR_EQ(exact(ctx, db, "plans-for-lunch"), "4"); /* notmuch: a-b-c is a phrase */
    /* Stemmed phrases and NEAR groups work too: the synonyms sit at one position. */
    ASSERT_STR_EQ(stemmed(ctx, db, "lunch plan"), "1");
    ASSERT_STR_EQ(stemmed(ctx, db, "planning lunch"), "4");
    ASSERT_STR_EQ(matches(ctx, db, "NEAR(\"\x01lunch\" \"\x01plan\", 2)"), "1 4");
    talloc_free(ctx);
}

/* notmuch leaves a gap between the parts it indexes: a phrase spans no part break. */
TEST(phrase_does_not_span_two_parts)
{
    void *ctx = talloc_new(NULL);
    sqlite3 *db = open_db(ctx, NULL);

    insert(db, 1, "", "first part ends\x1e" "second part begins");
    insert(db, 2, "", "part ends second part");
    ASSERT_STR_EQ(exact(ctx, db, "ends second"), "2");
    ASSERT_STR_EQ(exact(ctx, db, "first part ends"), "1");
    ASSERT_STR_EQ(exact(ctx, db, "second part begins"), "1");
    ASSERT_STR_EQ(stemmed(ctx, db, "ending second"), "2");
    talloc_free(ctx);
}

TEST(prefix_queries)
{
    void *ctx = talloc_new(NULL);
    sqlite3 *db = plan_db(ctx);

    ASSERT_STR_EQ(matches(ctx, db, maildex__fts_match_prefix(ctx, "lun")), "1 4");
    ASSERT_STR_EQ(matches(ctx, db, maildex__fts_match_prefix(ctx, "plan")), "1 2 3 4 5");
    ASSERT_STR_EQ(matches(ctx, db, maildex__fts_match_prefix(ctx, "plann")), "2 4");
    ASSERT_STR_EQ(matches(ctx, db, maildex__fts_match_prefix(ctx, "lunch pla")), "1");
    /* The marker is ignored on prefixes: a stemmed prefix is the exact one. */
    ASSERT_STR_EQ(matches(ctx, db, "\"\x01plann\"*"), "2 4");
    talloc_free(ctx);
}

TEST(column_filters)
{
    void *ctx = talloc_new(NULL);
    sqlite3 *db = plan_db(ctx);
    const char *w;

    w = maildex__fts_match_stemmed(ctx, "plan");
    ASSERT_STR_EQ(matches(ctx, db, talloc_asprintf(ctx, "{subject} : %s", w)), "1 2 3 4");
    ASSERT_STR_EQ(matches(ctx, db, talloc_asprintf(ctx, "{body} : %s", w)), "4");
    w = maildex__fts_match_quote(ctx, "lunches");
    ASSERT_STR_EQ(matches(ctx, db, talloc_asprintf(ctx, "subject : %s", w)), "");
    ASSERT_STR_EQ(matches(ctx, db, talloc_asprintf(ctx, "body : %s", w)), "4");
    ASSERT_STR_EQ(matches(ctx, db, talloc_asprintf(ctx, "{subject} : (%s OR %s)", w,
                                                   maildex__fts_match_quote(ctx, "planet"))),
                  "5");
    talloc_free(ctx);
}

/* ---- quoting ---------------------------------------------------------------------------------------- */

TEST(match_quote_escapes)
{
    void *ctx = talloc_new(NULL);
    sqlite3 *db = plan_db(ctx);

    ASSERT_STR_EQ(maildex__fts_match_quote(ctx, "say \"hi\""), "\"say \"\"hi\"\"\"");
    ASSERT_STR_EQ(maildex__fts_match_quote(ctx, "\x01plan"), "\" plan\"");
    ASSERT_STR_EQ(maildex__fts_match_stemmed(ctx, "a\"b"), "\"\x01" "a\"\"b\"");
    ASSERT_STR_EQ(maildex__fts_match_prefix(ctx, "lun"), "\"lun\"*");
    ASSERT(maildex__fts_match_quote(ctx, NULL) == NULL);
    /* Injection attempts stay one phrase. */
    ASSERT_STR_EQ(exact(ctx, db, "plan\" OR \"planet"), "");
    ASSERT_STR_EQ(exact(ctx, db, "NOT plan"), "");
    ASSERT_STR_EQ(exact(ctx, db, "{body} : lunches"), "");
    /* A user's marker cannot switch on stemming. */
    ASSERT_STR_EQ(exact(ctx, db, "\x01planning"), "2");
    talloc_free(ctx);
}

/* ---- unusual input ---------------------------------------------------------------------------------- */

TEST(non_ascii_round_trip)
{
    void *ctx = talloc_new(NULL);
    sqlite3 *db = open_db(ctx, NULL);

    insert(db, 1, "Привет мир", "日本語のテキスト");
    insert(db, 2, "Ελληνικά", "Straße");
    ASSERT_STR_EQ(exact(ctx, db, "привет"), "1");
    ASSERT_STR_EQ(exact(ctx, db, "ПРИВЕТ"), "1");
    ASSERT_STR_EQ(stemmed(ctx, db, "мир"), "1");
    ASSERT_STR_EQ(exact(ctx, db, "日本語のテキスト"), "1");
    ASSERT_STR_EQ(stemmed(ctx, db, "日本語のテキスト"), "1");
    ASSERT_STR_EQ(matches(ctx, db, maildex__fts_match_prefix(ctx, "日本")), "1");
    /* unicode61 folds case in Greek but removes only Latin diacritics. */
    ASSERT_STR_EQ(exact(ctx, db, "ΕΛΛΗΝΙΚΆ"), "2");
    ASSERT_STR_EQ(exact(ctx, db, "ελληνικα"), "");
    ASSERT_STR_EQ(stemmed(ctx, db, "STRASSE"), "");
    ASSERT_STR_EQ(stemmed(ctx, db, "straße"), "2");
    integrity_check(db);
    talloc_free(ctx);
}

TEST(long_tokens)
{
    void *ctx = talloc_new(NULL);
    sqlite3 *db = open_db(ctx, NULL);
    char *huge = talloc_array(ctx, char, 1001);
    char *at64 = talloc_strdup(ctx, ""), *at65;

    memset(huge, 'x', 1000);
    memcpy(huge + 995, "plans", 6);
    for (int i = 0; i < 59; i++)
        at64 = talloc_strdup_append(at64, "q");
    at64 = talloc_strdup_append(at64, "plans"); /* 64 bytes: stemmed */
    at65 = talloc_asprintf(ctx, "q%s", at64);   /* 65 bytes: not stemmed */
    insert(db, 1, huge, "");
    insert(db, 2, at64, "");
    insert(db, 3, at65, "");
    ASSERT_STR_EQ(exact(ctx, db, huge), "1");
    ASSERT_STR_EQ(stemmed(ctx, db, huge), "1");
    ASSERT_STR_EQ(matches(ctx, db, maildex__fts_match_prefix(ctx, "xxxxxxxx")), "1");
    ASSERT_STR_EQ(stemmed(ctx, db, at64), "2");
    at64[63] = '\0'; /* ...plan */
    ASSERT_STR_EQ(stemmed(ctx, db, at64), "2");
    ASSERT_STR_EQ(stemmed(ctx, db, at65), "3");
    at65[64] = '\0';
    ASSERT_STR_EQ(stemmed(ctx, db, at65), "");
    ASSERT_STR_EQ(tokens(ctx, db, FTS5_TOKENIZE_DOCUMENT, at65), at65);
    integrity_check(db);
    talloc_free(ctx);
}

TEST(empty_and_separator_only_text)
{
    void *ctx = talloc_new(NULL);
    sqlite3 *db = open_db(ctx, NULL);

    insert(db, 1, "", "");
    insert(db, 2, " ,.;-\t\n!? ", "\x01\x02\x7f");
    insert(db, 3, NULL, NULL);
    ASSERT_STR_EQ(tokens(ctx, db, FTS5_TOKENIZE_DOCUMENT, " ,.;- "), "");
    ASSERT_STR_EQ(exact(ctx, db, ""), "");
    ASSERT_STR_EQ(stemmed(ctx, db, ""), "");
    ASSERT_STR_EQ(stemmed(ctx, db, " ,.;- "), "");
    ASSERT_STR_EQ(matches(ctx, db, maildex__fts_match_prefix(ctx, "")), "");
    integrity_check(db);
    talloc_free(ctx);
}

TEST(binary_garbage_does_not_crash)
{
    void *ctx = talloc_new(NULL);
    sqlite3 *db = open_db(ctx, NULL);
    char buf[200];
    const char *found;

    srand(42);
    for (int doc = 1; doc <= 300; doc++) {
        int n = rand() % (int) (sizeof buf - 1);
        for (int i = 0; i < n; i++)
            buf[i] = (char) (1 + rand() % 255);
        buf[n] = '\0';
        insert(db, doc, buf, buf);
        found = stemmed(ctx, db, buf);
        ASSERT(strcmp(found, "error") != 0);
        found = exact(ctx, db, buf);
        ASSERT(strcmp(found, "error") != 0);
        found = matches(ctx, db, maildex__fts_match_prefix(ctx, buf));
        ASSERT(strcmp(found, "error") != 0);
    }
    integrity_check(db);
    talloc_free(ctx);
}

/* ---- maintenance ------------------------------------------------------------------------------------ */

static void delete_row(sqlite3 *db, sqlite3_int64 rowid, const char *subject, const char *body)
{
    sqlite3_stmt *stmt;

    ASSERT_EQ(sqlite3_prepare_v2(db, "INSERT INTO t(t, rowid, subject, body) VALUES ('delete', ?, ?, ?)", -1,
                                 &stmt, NULL),
              SQLITE_OK);
    sqlite3_bind_int64(stmt, 1, rowid);
    sqlite3_bind_text(stmt, 2, subject, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 3, body, -1, SQLITE_STATIC);
    sqlite3_step(stmt);
    ASSERT_EQ(sqlite3_finalize(stmt), SQLITE_OK);
}

/* User-defined fields: a segment's words carry its prefix (stems too), in the index and in queries;
 * the same word elsewhere or under another prefix is another term; a prefix query with no word is any
 * word of the field; a value cannot forge a field; deletes keep the index whole. */
TEST(user_fields)
{
    void *ctx = talloc_new(NULL);
    sqlite3 *db = open_db(ctx, ", content=''");
    static const char fields1[] = "\x02List\x02Notmuch mailing-list\x02Spam\x02yes";
    static const char fields2[] = "\x02Spam\x02notmuch lists";

    ASSERT_STR_EQ(tokens(ctx, db, FTS5_TOKENIZE_DOCUMENT, fields1),
                  "|List|notmuch |List|mailing =|List|^mail |List|list |Spam|yes");
    ASSERT_STR_EQ(tokens(ctx, db, FTS5_TOKENIZE_QUERY, "\x01\x02List\x02lists"), "|List|^list =|List|list");
    ASSERT_STR_EQ(tokens(ctx, db, FTS5_TOKENIZE_QUERY | FTS5_TOKENIZE_PREFIX, "\x02List\x02"), "|List|");
    ASSERT_STR_EQ(tokens(ctx, db, FTS5_TOKENIZE_QUERY, "\x02List\x02"), "");
    insert(db, 1, "notmuch", fields1);
    insert(db, 2, "other", fields2);
    insert(db, 3, "none", "notmuch list");
    integrity_check(db);
    ASSERT_STR_EQ(matches(ctx, db, maildex__fts_match_field(ctx, "List", "notmuch", MAILDEX_FTS_EXACT)), "1");
    ASSERT_STR_EQ(matches(ctx, db, maildex__fts_match_field(ctx, "Spam", "notmuch", MAILDEX_FTS_EXACT)), "2");
    ASSERT_STR_EQ(matches(ctx, db, maildex__fts_match_field(ctx, "Spam", "list", MAILDEX_FTS_STEMMED)), "2");
    ASSERT_STR_EQ(matches(ctx, db, maildex__fts_match_field(ctx, "List", "mailing list", MAILDEX_FTS_EXACT)), "1");
    ASSERT_STR_EQ(matches(ctx, db, maildex__fts_match_field(ctx, "List", "list mailing", MAILDEX_FTS_EXACT)), "");
    ASSERT_STR_EQ(matches(ctx, db, maildex__fts_match_field(ctx, "List", "mail", MAILDEX_FTS_PREFIX)), "1");
    ASSERT_STR_EQ(matches(ctx, db, maildex__fts_match_field(ctx, "List", "", MAILDEX_FTS_PREFIX)), "1");
    ASSERT_STR_EQ(matches(ctx, db, maildex__fts_match_field(ctx, "Spam", "", MAILDEX_FTS_PREFIX)), "1 2");
    ASSERT_STR_EQ(exact(ctx, db, "notmuch"), "1 3");
    ASSERT_STR_EQ(exact(ctx, db, "\x02notmuch\x02list"), "3"); /* markers blanked: plain words */
    delete_row(db, 1, "notmuch", fields1);
    integrity_check(db);
    ASSERT_STR_EQ(matches(ctx, db, maildex__fts_match_field(ctx, "List", "", MAILDEX_FTS_PREFIX)), "");
    talloc_free(ctx);
}

TEST(contentless_delete_keeps_integrity)
{
    void *ctx = talloc_new(NULL);
    sqlite3 *db = open_db(ctx, ", content=''");

    insert(db, 1, "Lunch plans", "planned lunches at the café");
    insert(db, 2, "Planning meeting", "agenda: plans, planning, planners");
    insert(db, 3, "Привет", "日本語 agreed agre");
    integrity_check(db);
    ASSERT_STR_EQ(stemmed(ctx, db, "plan"), "1 2");
    delete_row(db, 2, "Planning meeting", "agenda: plans, planning, planners");
    delete_row(db, 3, "Привет", "日本語 agreed agre");
    integrity_check(db);
    ASSERT_STR_EQ(stemmed(ctx, db, "plan"), "1");
    ASSERT_STR_EQ(stemmed(ctx, db, "agreed"), "");
    ASSERT_STR_EQ(exact(ctx, db, "cafe"), "1");
    ASSERT_EQ(sqlite3_exec(db, "INSERT INTO t(t) VALUES('optimize')", NULL, NULL, NULL), SQLITE_OK);
    integrity_check(db);
    talloc_free(ctx);
}

TEST(contentless_delete_many)
{
    void *ctx = talloc_new(NULL);
    sqlite3 *db = open_db(ctx, ", content=''");
    char **docs = talloc_array(ctx, char *, 400);

    ASSERT_EQ(sqlite3_exec(db, "BEGIN", NULL, NULL, NULL), SQLITE_OK);
    for (int i = 0; i < 400; i++) {
        docs[i] = word_list(docs, 60, i * 31);
        insert(db, i + 1, docs[i] + 100, docs[i]);
    }
    ASSERT_EQ(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
    integrity_check(db);
    /* Deleting re-tokenizes long after inserting, with the stem cache in another state. */
    for (int i = 0; i < 400; i += 2)
        delete_row(db, i + 1, docs[i] + 100, docs[i]);
    integrity_check(db);
    ASSERT_EQ(sqlite3_exec(db, "INSERT INTO t(t) VALUES('optimize')", NULL, NULL, NULL), SQLITE_OK);
    integrity_check(db);
    talloc_free(ctx);
}

TEST(highlight_marks_stemmed_matches)
{
    void *ctx = talloc_new(NULL);
    sqlite3 *db = open_db(ctx, NULL);
    sqlite3_stmt *stmt;

    insert(db, 1, "We planned Lunch", "");
    ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT highlight(t, 0, '[', ']') FROM t WHERE t MATCH ?", -1, &stmt,
                                 NULL),
              SQLITE_OK);
    sqlite3_bind_text(stmt, 1, maildex__fts_match_stemmed(ctx, "plans"), -1, SQLITE_TRANSIENT);
    ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
    ASSERT_STR_EQ((const char *) sqlite3_column_text(stmt, 0), "We [planned] Lunch");
    sqlite3_finalize(stmt);
    talloc_free(ctx);
}

TEST(newest_first_with_synonyms)
{
    void *ctx = talloc_new(NULL);
    sqlite3 *db = plan_db(ctx);
    sqlite3_stmt *stmt;
    char *got = talloc_strdup(ctx, "");

    ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT rowid FROM t WHERE t MATCH ? ORDER BY rowid DESC LIMIT 3", -1,
                                 &stmt, NULL),
              SQLITE_OK);
    sqlite3_bind_text(stmt, 1, maildex__fts_match_stemmed(ctx, "plan"), -1, SQLITE_TRANSIENT);
    while (sqlite3_step(stmt) == SQLITE_ROW)
        got = talloc_asprintf_append(got, "%lld ", sqlite3_column_int64(stmt, 0));
    sqlite3_finalize(stmt);
    ASSERT_STR_EQ(got, "4 3 2 ");
    talloc_free(ctx);
}

TEST(tokenizer_arguments)
{
    void *ctx = talloc_new(NULL);
    sqlite3 *db = open_db(ctx, NULL);

    /* Extra arguments reach unicode61 ... */
    ASSERT_EQ(sqlite3_exec(db, "CREATE VIRTUAL TABLE u USING fts5(x, tokenize='maildex tokenchars ''-''')",
                           NULL, NULL, NULL),
              SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "INSERT INTO u VALUES ('e-mail plans')", NULL, NULL, NULL), SQLITE_OK);
    {
        sqlite3_stmt *stmt;
        ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT count(*) FROM u WHERE u MATCH '\"e-mail\" AND \"\x01plan\"'",
                                     -1, &stmt, NULL),
                  SQLITE_OK);
        ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
        ASSERT_EQ(sqlite3_column_int(stmt, 0), 1);
        sqlite3_finalize(stmt);
    }
    /* ... bad ones fail the CREATE, and so does a marker among the token characters. */
    ASSERT_NE(sqlite3_exec(db, "CREATE VIRTUAL TABLE v USING fts5(x, tokenize='maildex bogus 1')", NULL, NULL,
                           NULL),
              SQLITE_OK);
    ASSERT_NE(sqlite3_exec(db, "CREATE VIRTUAL TABLE w USING fts5(x, tokenize='maildex tokenchars ''\x01''')",
                           NULL, NULL, NULL),
              SQLITE_OK);
    talloc_free(ctx);
}

/* ---- recording on another thread, replaying on the writer's ---------------------------------------- */

/* connect_db returning the connection's tokenizer state; table t made with tokenize=TOKENIZE unless
 * that is NULL. */
static sqlite3 *open_shared(void *ctx, const char *tokenize, struct maildex__fts_shared **sh)
{
    sqlite3 *db = connect_db(ctx, sh);

    ASSERT(*sh != NULL);
    if (tokenize) {
        char *sql = talloc_asprintf(ctx, "CREATE VIRTUAL TABLE t USING fts5(subject, body, tokenize=%s)",
                                    tokenize);
        ASSERT_EQ(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    }
    return db;
}

/* Every (term, row, column, position) of table t, as one string. */
static const char *index_dump(void *ctx, sqlite3 *db)
{
    sqlite3_stmt *stmt;
    char *out = talloc_strdup(ctx, "");

    ASSERT_EQ(sqlite3_exec(db, "CREATE VIRTUAL TABLE IF NOT EXISTS v USING fts5vocab(t, instance)", NULL,
                           NULL, NULL),
              SQLITE_OK);
    ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT term, doc, col, offset FROM v ORDER BY 1, 2, 3, 4", -1, &stmt,
                                 NULL),
              SQLITE_OK);
    while (sqlite3_step(stmt) == SQLITE_ROW)
        out = talloc_asprintf_append(out, "%s/%lld/%s/%d ", sqlite3_column_text(stmt, 0),
                                     sqlite3_column_int64(stmt, 1), sqlite3_column_text(stmt, 2),
                                     sqlite3_column_int(stmt, 3));
    sqlite3_finalize(stmt);
    return out;
}

static void insert_replayed(sqlite3 *db, struct maildex__fts_shared *sh, sqlite3_int64 rowid,
                            const char *const texts[2], struct maildex__fts_tokens *const tokens[2])
{
    maildex__fts_replay_set(sh, tokens, 2);
    insert(db, rowid, texts[0], texts[1]);
    maildex__fts_replay_set(sh, NULL, 0);
}

TEST(recorded_tokens_index_exactly_as_tokenizing)
{
    void *ctx = talloc_new(NULL);
    struct maildex__fts_shared *sh_plain, *sh_replay;
    sqlite3 *plain = open_shared(ctx, "'maildex tokenchars _'", &sh_plain);
    sqlite3 *replayed = open_shared(ctx, "'maildex tokenchars _'", &sh_replay);
    struct maildex__fts_recorder *rec = maildex__fts_recorder_new(sh_replay);
    const char *rows[][2] = {
        {"Planning meeting: café Straße", "We planned the plans; notmuch_mail 日本語 agreed\n> quoted"},
        {"", "a very_long_token_" "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx end"},
        {"Re: Re: lunch", ""},
    };

    ASSERT(rec != NULL);
    for (int i = 0; i < 3; i++) {
        struct maildex__fts_tokens *tokens[2];
        for (int c = 0; c < 2; c++)
            ASSERT((tokens[c] = maildex__fts_record(ctx, rec, rows[i][c])) != NULL);
        insert(plain, i + 1, rows[i][0], rows[i][1]);
        insert_replayed(replayed, sh_replay, i + 1, rows[i], tokens);
    }
    ASSERT(strlen(index_dump(ctx, plain)) > 100);
    ASSERT_STR_EQ(index_dump(ctx, replayed), index_dump(ctx, plain));
    integrity_check(replayed);
    ASSERT_STR_EQ(stemmed(ctx, replayed, "plan"), "1");
    maildex__fts_recorder_free(rec);
    talloc_free(ctx);
}

TEST(replay_is_used_only_for_the_recorded_text)
{
    void *ctx = talloc_new(NULL);
    struct maildex__fts_shared *sh_other, *sh;
    sqlite3 *db;
    struct maildex__fts_recorder *rec;
    struct maildex__fts_tokens *tokens[2];
    const char *texts[2] = {"alpha-beta", "gamma-delta"};

    /* A recorder of a table that keeps '-' inside words, replayed into one that splits on it: the
     * index shows which tokens were used. (index.c only replays its own connection's recordings.) */
    open_shared(ctx, "'maildex tokenchars ''-'''", &sh_other);
    db = open_shared(ctx, "'maildex'", &sh);
    rec = maildex__fts_recorder_new(sh_other);
    ASSERT(rec != NULL);
    tokens[0] = maildex__fts_record(ctx, rec, "alpha-beta");
    tokens[1] = maildex__fts_record(ctx, rec, "gamma-delta!"); /* not quite texts[1] */
    insert_replayed(db, sh, 1, texts, tokens);
    ASSERT(strstr(index_dump(ctx, db), "alpha-beta/1/subject/0 ") != NULL); /* the recorded token */
    ASSERT_STR_EQ(matches(ctx, db, "alpha"), "");   /* ...and no token "alpha" of this table's own */
    ASSERT_STR_EQ(matches(ctx, db, "gamma"), "1"); /* not the recorded text: tokenized here */
    /* Cleared after the insert: the same text is tokenized normally again. */
    insert(db, 2, "alpha-beta", "");
    ASSERT_STR_EQ(matches(ctx, db, "alpha"), "2");
    maildex__fts_recorder_free(rec);
    talloc_free(ctx);
}

TEST(no_recorder_before_the_table_made_its_tokenizer)
{
    void *ctx = talloc_new(NULL);
    struct maildex__fts_shared *sh;

    open_shared(ctx, NULL, &sh);
    ASSERT(maildex__fts_recorder_new(sh) == NULL);
    ASSERT(maildex__fts_recorder_new(NULL) == NULL);
    ASSERT(maildex__fts_record(ctx, NULL, "text") == NULL);
    talloc_free(ctx);
}

TEST_MAIN(
    TEST_ENTRY(document_tokens_have_colocated_stems)
    TEST_ENTRY(query_tokens)
    TEST_ENTRY(stem_cache_is_transparent)
    TEST_ENTRY(stemmed_plan_finds_all_forms)
    TEST_ENTRY(exact_plan_finds_only_plan)
    TEST_ENTRY(exact_plans_finds_plans)
    TEST_ENTRY(non_idempotent_stem_matches_like_xapian)
    TEST_ENTRY(case_insensitive)
    TEST_ENTRY(diacritics_folded)
    TEST_ENTRY(phrase_is_adjacent_and_unstemmed)
    TEST_ENTRY(prefix_queries)
    TEST_ENTRY(column_filters)
    TEST_ENTRY(match_quote_escapes)
    TEST_ENTRY(user_fields)
    TEST_ENTRY(non_ascii_round_trip)
    TEST_ENTRY(long_tokens)
    TEST_ENTRY(empty_and_separator_only_text)
    TEST_ENTRY(binary_garbage_does_not_crash)
    TEST_ENTRY(contentless_delete_keeps_integrity)
    TEST_ENTRY(contentless_delete_many)
    TEST_ENTRY(highlight_marks_stemmed_matches)
    TEST_ENTRY(newest_first_with_synonyms)
    TEST_ENTRY(tokenizer_arguments)
    TEST_ENTRY(recorded_tokens_index_exactly_as_tokenizing)
    TEST_ENTRY(replay_is_used_only_for_the_recorded_text)
    TEST_ENTRY(no_recorder_before_the_table_made_its_tokenizer)
)
