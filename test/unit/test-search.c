/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The query planner and the search API: every prefix and operator on a small hand-made store, thread
 * summaries as notmuch computes them, and the work bound (EXPLAIN QUERY PLAN without a temp B-tree for
 * ORDER BY; VM steps for --limit=50 queries that do not grow from 10k to 100k messages). Stores are built
 * with direct SQL, as `maildex new` would fill them (sql/0001-schema.sql). */
#include "store/maildex-private.h"
#include "query/plan.h"
#include "query/ast.h"
#include "store/vm-steps.h"
#include "test.h"

#include <glib.h>
#include <math.h>
#include <stdlib.h>

#define T0 1704103200 /* 2024-01-01 10:00 UTC */

static maildex_db_t *open_store(const char *label)
{
    char path[4200];
    maildex_db_t *db = NULL;
    char *err = NULL;

    snprintf(path, sizeof path, "%s/maildex.db", test_scratch_dir(label));
    if (maildex_db_open(path, "/mail", MAILDEX_DB_CREATE, &db, &err) != MAILDEX_STATUS_OK) {
        printf("# open: %s\n", err ? err : "?");
        free(err);
    }
    ASSERT(db != NULL);
    return db;
}

static void exec(maildex_db_t *db, const char *sql)
{
    char *err = NULL;
    if (sqlite3_exec(db->sql, sql, NULL, NULL, &err) != SQLITE_OK) {
        printf("# %s: %s\n", sql, err);
        sqlite3_free(err);
        ASSERT(0);
    }
}

struct fx_msg {
    const char *mid;
    int thread;
    int64_t date;
    const char *from, *author, *to, *subject, *body, *attachment, *mimetype;
    const char *tags;  /* space-separated */
    const char *files; /* space-separated "dir-id:name" */
    const char *parent;
    int lastmod;
};

/* Inserts m with key date * 2^20 + seq; tags, folders and threads are created as needed. */
static void fx_add(maildex_db_t *db, const struct fx_msg *m, int seq)
{
    int64_t id = maildex__key_of_date(m->date) + seq;
    char *sql;
    char **tags = g_strsplit(m->tags ? m->tags : "", " ", -1);
    char **files = g_strsplit(m->files ? m->files : "", " ", -1);

    sql = sqlite3_mprintf("INSERT OR IGNORE INTO threads(id) VALUES (%d);"
                          "UPDATE threads SET messages = messages + 1 WHERE id = %d;"
                          "UPDATE meta SET value = value + 1 WHERE key = 'messages';"
                          "INSERT INTO messages(id, message_id, thread, date, parent, subject, author, lastmod)"
                          " VALUES (%lld, %Q, %d, %lld, %Q, %Q, %Q, %d);"
                          "INSERT INTO texts(id, subject, \"from\", \"to\", body, attachment, mimetype)"
                          " VALUES (%lld, %Q, %Q, %Q, %Q, %Q, %Q);"
                          "INSERT INTO fts(rowid, subject, \"from\", \"to\", body, attachment, mimetype)"
                          " VALUES (%lld, %Q, %Q, %Q, %Q, %Q, %Q);",
                          m->thread, m->thread, (long long) id, m->mid, m->thread, (long long) m->date,
                          m->parent, m->subject, m->author, m->lastmod, (long long) id, m->subject,
                          m->from, m->to, m->body, m->attachment, m->mimetype, (long long) id,
                          m->subject, m->from, m->to, m->body, m->attachment, m->mimetype);
    exec(db, sql);
    sqlite3_free(sql);
    for (char **t = tags; *t; t++) {
        if (!**t)
            continue;
        sql = sqlite3_mprintf("INSERT OR IGNORE INTO tags(name) VALUES (%Q);"
                              "UPDATE tags SET messages = messages + 1 WHERE name = %Q;"
                              "INSERT INTO message_tags(tag, message) SELECT id, %lld FROM tags WHERE name = %Q;",
                              *t, *t, (long long) id, *t);
        exec(db, sql);
        sqlite3_free(sql);
    }
    for (char **f = files; *f; f++) {
        int dir;
        char name[200];
        if (!**f || sscanf(*f, "%d:%199s", &dir, name) != 2)
            continue;
        sql = sqlite3_mprintf("INSERT INTO files(directory, name, message, folder) SELECT %d, %Q, %lld, "
                              "folder FROM directories WHERE id = %d;",
                              dir, name, (long long) id, dir);
        exec(db, sql);
        sqlite3_free(sql);
    }
    g_strfreev(tags);
    g_strfreev(files);
}

static const struct fx_msg small[] = {
    {"msg1@example.org", 1, T0, "Alice Example <alice@example.org>", "Alice Example", "bob@example.com",
     "Lunch plans", "Shall we get lunch? Café downtown.", "", "text/plain", "inbox unread", "1:1:2,S",
     NULL, 1},
    {"msg2@example.com", 1, T0 + 3600, "Bob <bob@example.com>", "Bob",
     "alice@example.org \"Carol, C.\" <carol@example.net>", "Re: Lunch plans",
     "Sure works for me, planning ahead", "", "multipart/alternative text/plain text/html",
     "inbox unread", "1:2:2,", "msg1@example.org", 1},
    {"msg3@example.net", 1, T0 + 9000, "Carol <carol@example.net>", "Carol", "alice@example.org",
     "Re: Lunch plans", "Here is the menu", "menu.pdf", "multipart/mixed text/plain application/pdf",
     "attachment inbox unread", "2:3", "msg2@example.com", 1},
    {"spam1@spam.biz", 2, T0 + 31 * 86400, "Spammer <s@spam.biz>", "Spammer", "alice@example.org",
     "Cheap pills", "buy now", "", "text/plain", "spam inbox", "1:4", NULL, 2},
    {"sent1@example.org", 3, T0 + 60 * 86400, "Alice Example <alice@example.org>", "Alice Example",
     "dave@lists.org", "Report", "quarterly report attached", "", "text/plain", "sent replied",
     "3:5 4:5", NULL, 3},
    {"list1@lists.org", 4, T0 - 31 * 86400, "Dave <dave@lists.org>", "Dave", "foo@lists.org",
     "[foo] Release 1.0", "the release-notes are out", "", "text/plain", "lists deleted", "4:6", NULL, 4},
};

static maildex_db_t *small_store(void)
{
    maildex_db_t *db = open_store("small");

    exec(db, "BEGIN;"
             "INSERT INTO folders(id, name) VALUES (1, ''), (2, 'sent'), (3, 'lists/foo'), (4, 'lists');"
             "INSERT INTO directories(id, path, folder) VALUES (1, 'cur', 1), (2, 'new', 1), "
             "(3, 'sent/cur', 2), (4, 'lists/foo/cur', 3), (5, 'lists', 4), (6, '', 1);");
    for (size_t i = 0; i < sizeof small / sizeof small[0]; i++)
        fx_add(db, &small[i], (int) i);
    exec(db, "INSERT INTO properties(message, key, value) SELECT id, 'foo', 'bar baz' FROM messages "
             "WHERE message_id = 'sent1@example.org'; COMMIT;");
    return db;
}

static const char *const excluded_tags[] = {"deleted", "spam", NULL};

/* The syntax ids() reads queries in (the sexp tests set it). */
static maildex_query_syntax_t query_syntax = MAILDEX_QUERY_INFIX;

/* The Message-IDs text matches, space-separated, in the order given. */
static char *ids(void *ctx, maildex_db_t *db, const char *text, maildex_exclude_t exclude,
                 maildex_sort_t sort, uint64_t offset, int64_t limit)
{
    maildex_query_options_t opts = MAILDEX_QUERY_OPTIONS_INIT;
    maildex_query_t *q;
    maildex_messages_t *it;
    maildex_message_t *m;
    char *out = talloc_strdup(ctx, "");

    opts.exclude = exclude;
    opts.exclude_tags = excluded_tags;
    opts.sort = sort;
    opts.offset = offset;
    opts.limit = limit;
    opts.now = T0 + 100 * 86400;
    opts.syntax = query_syntax;
    if (maildex_query_create(db, text, &opts, &q) != MAILDEX_STATUS_OK)
        return talloc_asprintf(ctx, "error: %s", maildex_db_errmsg(db));
    if (maildex_query_search_messages(q, &it) != MAILDEX_STATUS_OK)
        return talloc_asprintf(ctx, "error: %s", maildex_db_errmsg(db));
    while (maildex_messages_next(it, &m) == MAILDEX_STATUS_OK && m)
        out = talloc_asprintf_append(out, "%s%s", *out ? " " : "", maildex_message_id(m));
    maildex_query_destroy(q);
    return out;
}

struct qcase {
    const char *query;
    const char *want;
    maildex_exclude_t exclude;
};

static void check(maildex_db_t *db, const struct qcase *cases, size_t n)
{
    void *ctx = talloc_new(NULL);
    int bad = 0;

    for (size_t i = 0; i < n; i++) {
        char *got = ids(ctx, db, cases[i].query, cases[i].exclude, MAILDEX_SORT_NEWEST_FIRST, 0, -1);
        if (strcmp(got, cases[i].want) != 0) {
            printf("# %s\n#   got:      %s\n#   expected: %s\n", cases[i].query, got, cases[i].want);
            bad++;
        }
    }
    talloc_free(ctx);
    ASSERT_EQ(bad, 0);
}

#define M1 "msg1@example.org"
#define M2 "msg2@example.com"
#define M3 "msg3@example.net"
#define SP "spam1@spam.biz"
#define SE "sent1@example.org"
#define LI "list1@lists.org"
#define F MAILDEX_EXCLUDE_FALSE

TEST(every_prefix_and_operator)
{
    maildex_db_t *db = small_store();
    static const struct qcase cases[] = {
        {"*", SE " " M3 " " M2 " " M1, 0},
        {"", SE " " M3 " " M2 " " M1, 0},
        {"*", SE " " SP " " M3 " " M2 " " M1 " " LI, F},
        {"'", "", 0},
        /* tags, exclusion */
        {"tag:inbox", M3 " " M2 " " M1, 0},
        {"tag:inbox", SP " " M3 " " M2 " " M1, F},
        {"is:inbox", M3 " " M2 " " M1, 0},
        {"tag:spam", SP, 0},
        {"not tag:spam", SE " " M3 " " M2 " " M1, 0},
        {"tag:INBOX", "", 0},
        {"tag:inb*", "", 0},
        {"tag:nosuch", "", 0},
        {"tag:/^un/", M3 " " M2 " " M1, 0},
        {"tag:/^(spam|sent)$/", SE " " SP, 0},
        {"tag:inbox tag:sent", SE " " M3 " " M2 " " M1, 0},
        {"tag:inbox and not tag:attachment", M2 " " M1, 0},
        {"tag:inbox -tag:attachment", M2 " " M1, 0},
        {"tag:inbox and tag:unread", M3 " " M2 " " M1, 0},
        {"tag:inbox xor tag:unread", SP, F},
        {"tag:attachment or tag:sent or tag:lists", SE " " M3, 0},
        /* full text */
        {"lunch", M3 " " M2 " " M1, 0},
        {"LUNCH", M3 " " M2 " " M1, 0},
        {"plan", M3 " " M2 " " M1, 0},
        {"Plan", "", 0},
        {"plans", M3 " " M2 " " M1, 0},
        {"\"plan\"", "", 0},
        {"lun*", M3 " " M2 " " M1, 0},
        {"cafe", M1, 0},
        {"\"sure works\"", M2, 0},
        {"\"works sure\"", "", 0},
        {"sure works", M2, 0},
        {"release-notes", LI, F},
        {"notes-release", "", F},
        {"pdf", M3, 0},
        {"alice@example.org", SE " " SP " " M3 " " M2 " " M1, F},
        {"lunch and not menu", M2 " " M1, 0},
        {"lunch or report", SE " " M3 " " M2 " " M1, 0},
        {"lunch xor menu", M2 " " M1, 0},
        {"lunch tag:attachment", M3, 0},
        {"nosuchword", "", 0},
        /* fields */
        {"from:bob", M2, 0},
        {"from:BOB", M2, 0},
        {"from:alice", SE " " M1, 0},
        {"from:alice@example.org", SE " " M1, 0},
        {"from:\"alice example\"", SE " " M1, 0},
        {"from:alice-example", SE " " M1, 0},
        {"from:example.com", M2, 0},
        {"from:bob from:carol", M3 " " M2, 0},
        {"from:/Bo/", M2, 0},
        {"from:car*", M3, 0},
        {"to:carol", M2, 0},
        {"to:carols", M2, 0},
        {"subject:lunch", M3 " " M2 " " M1, 0},
        {"subject:plan", "", 0},
        {"subject:Plans", M3 " " M2 " " M1, 0},
        {"subject:lun*", M3 " " M2 " " M1, 0},
        {"subject:\"lunch plans\"", M3 " " M2 " " M1, 0},
        {"subject:/^Re:/", M3 " " M2, 0},
        {"subject:(plans lunch)", M3 " " M2 " " M1, 0},
        {"body:lunches", M1, 0},
        {"body:planning", M2, 0},
        {"body:plans", M2, 0},
        {"body:menu", M3, 0},
        {"body:lunch subject:report", "", 0},
        {"attachment:menu", M3, 0},
        {"attachment:pdf", M3, 0},
        {"attachment:menu.pdf", M3, 0},
        {"mimetype:application/pdf", M3, 0},
        {"mimetype:text/html", M2, 0},
        /* ids and threads */
        {"id:msg2@example.com", M2, 0},
        {"id:MSG2@example.com", "", 0},
        {"id:msg2*", "", 0},
        {"mid:msg2@example.com", M2, 0},
        {"mid:/msg[12]/", M2 " " M1, 0},
        {"id:msg1@example.org id:msg3@example.net", M3 " " M1, 0},
        {"thread:0000000000000001", M3 " " M2 " " M1, 0},
        {"thread:1", "", 0},
        {"thread:{from:carol}", M3 " " M2 " " M1, 0},
        {"thread:{tag:sent}", SE, 0},
        {"thread:{from:carol} and not from:carol", M2 " " M1, 0},
        /* folders and paths */
        {"folder:sent", SE, 0},
        {"folder:\"\"", M3 " " M2 " " M1, 0},
        {"folder:cur", "", 0},
        {"folder:lists/foo", SE " " LI, F},
        {"folder:/^lists/", SE " " LI, F},
        {"path:cur", M2 " " M1, 0},
        {"path:new", M3, 0},
        {"path:\"\"", "", 0},
        {"path:lists/**", SE " " LI, F},
        {"path:sent/**", SE, 0},
        {"path:**", SE " " M3 " " M2 " " M1, 0},
        {"path:/^sent/", SE, 0},
        /* properties, dates, lastmod */
        {"property:\"foo=bar baz\"", SE, 0},
        {"property:foo=bar", "", 0},
        {"date:2024-01", M3 " " M2 " " M1, 0},
        {"date:2024-01-01", M3 " " M2 " " M1, 0},
        {"date:2024-02..2024-03", SE, 0},
        {"date:2024-02..2024-03", SE " " SP, F},
        {"date:..2023", LI, F},
        {"date:2023-12-31..2024-01-01_10:30", M1, 0},
        {"date:2023 date:2024-03", SE " " LI, F},
        {"1704100000..1704108000", M2 " " M1, 0},
        {"lastmod:2..3", SE " " SP, F},
        {"lastmod:..1", M3 " " M2 " " M1, 0},
        /* the exclusion does not apply when the query names the tag */
        {"tag:deleted or tag:sent", SE " " LI, 0},
    };
    check(db, cases, sizeof cases / sizeof cases[0]);
    maildex_db_close(db);
}

TEST(sort_offset_limit_and_errors)
{
    maildex_db_t *db = small_store();
    void *ctx = talloc_new(NULL);

    ASSERT_STR_EQ(ids(ctx, db, "*", 0, MAILDEX_SORT_OLDEST_FIRST, 0, -1), M1 " " M2 " " M3 " " SE);
    ASSERT_STR_EQ(ids(ctx, db, "*", 0, MAILDEX_SORT_NEWEST_FIRST, 1, 2), M3 " " M2);
    ASSERT_STR_EQ(ids(ctx, db, "folder:lists/foo", F, MAILDEX_SORT_OLDEST_FIRST, 0, -1), LI " " SE);
    ASSERT_STR_EQ(ids(ctx, db, "tag:inbox tag:sent", 0, MAILDEX_SORT_OLDEST_FIRST, 0, 2), M1 " " M2);
    ASSERT_STR_EQ(ids(ctx, db, "tag:inbox and", 0, 0, 0, -1),
                  "error: syntax error at position 13: expected a term after 'and'");
    ASSERT(strstr(ids(ctx, db, "date:2024-01-01T11:00..", 0, 0, 0, -1), "error: ") != NULL);
    ASSERT(strstr(ids(ctx, db, "tag:/(/", 0, 0, 0, -1), "invalid regex") != NULL);
    ASSERT(strstr(ids(ctx, db, "lastmod:x..y", 0, 0, 0, -1), "error: ") != NULL);
    talloc_free(ctx);
    maildex_db_close(db);
}

/* The sexp syntax's terms that the infix language cannot say, planned by the same handlers: wildcards
 * and regexes on every boolean field, (field (of ...)), any word of a field; and its stemming of
 * capitalised words. Errors are notmuch's, without a position. */
TEST(sexp_queries)
{
    maildex_db_t *db = small_store();
    void *ctx = talloc_new(NULL);
    static const struct qcase cases[] = {
        {"Plan", M3 " " M2 " " M1, 0},
        {"\"plan\"", "", 0},
        {"(and lunch (not (from bob)))", M3 " " M1, 0},
        {"(tag (starts-with un))", M3 " " M2 " " M1, 0},
        {"(tag (starts-with INB))", M3 " " M2 " " M1, 0},
        {"(tag *)", SE " " SP " " M3 " " M2 " " M1 " " LI, F},
        {"(not (tag *))", "", F},
        {"(is (rx ^sp))", SP, F},
        {"(id (starts-with msg))", M3 " " M2 " " M1, 0},
        {"(mid (starts-with msg1@))", M1, 0},
        {"(id *)", SE " " M3 " " M2 " " M1, 0},
        {"(id (starts-with \"\xff\"))", "", 0},
        {"(thread (starts-with 000000000000000))", SE " " SP " " M3 " " M2 " " M1 " " LI, F},
        {"(thread (starts-with 0000000000000001))", M3 " " M2 " " M1, 0},
        {"(thread (starts-with 00000000000000010))", "", 0},
        {"(thread (starts-with xyz))", "", 0},
        {"(thread (rx [12]$))", SP " " M3 " " M2 " " M1, F},
        {"(folder (starts-with lists))", SE " " LI, F},
        {"(folder *)", SE " " M3 " " M2 " " M1, 0},
        {"(path (starts-with sent))", SE, 0},
        {"(property (starts-with foo=))", SE, 0},
        {"(property (starts-with fo))", SE, 0},
        {"(property (starts-with foo=bar))", SE, 0},
        {"(property (starts-with foo=baz))", "", 0},
        {"(property *)", SE, 0},
        {"(property (rx =bar))", SE, 0},
        {"(property (rx ^x))", "", 0},
        {"(property (of (id sent1@example.org)))", SE, 0},
        {"(tag (of (id msg3@example.net)))", M3 " " M2 " " M1, 0},
        {"(tag (of (id msg3@example.net)))", SP " " M3 " " M2 " " M1, F},
        {"(folder (of (id list1@lists.org)))", SE " " LI, F},
        {"(from (of (id msg2@example.com)))", SE " " M3 " " M2 " " M1, 0},
        {"(subject (of (id spam1@spam.biz)))", SP, F},
        {"(subject (of (id nosuch@example.org)))", "", F},
        {"(thread (of (from carol)))", M3 " " M2 " " M1, 0},
        {"(or (tag sent) (thread (of (from carol))))", SE " " M3 " " M2 " " M1, 0},
        {"(to *)", SE " " M3 " " M2 " " M1, 0},
        {"(not (attachment *))", SE " " SP " " M2 " " M1 " " LI, F},
        {"(and (attachment *) (tag inbox))", M3, 0},
        {"(subject (starts-with lun))", M3 " " M2 " " M1, 0},
        /* outside a field a wildcard is on the body's words, which alone notmuch indexes unprefixed */
        {"(starts-with plan)", M2, 0},
        {"(starts-with lunch)", M1, 0},
        {"*", SE " " M3 " " M2 " " M1, 0},
        {"(date 2024-01-01)", M3 " " M2 " " M1, 0},
        {"(date 2024-02 2024-03)", SE, 0},
        {"(date * 2023)", LI, F},
        {"(lastmod 2 3)", SE " " SP, F},
        {"(infix \"tag:inbox and not tag:attachment\")", M2 " " M1, 0},
        {"(date hawaiian-pizza-day)", "error: Didn't understand date specification 'hawaiian-pizza-day'", 0},
        {"(date 2024 hawaiian-pizza-day)", "error: Didn't understand date specification 'hawaiian-pizza-day'",
         0},
        {"(tag deleted)", LI, 0},
    };

    query_syntax = MAILDEX_QUERY_SEXP;
    check(db, cases, sizeof cases / sizeof cases[0]);
    ASSERT(strncmp(ids(ctx, db, "(tag (rx \"(\"))", 0, 0, 0, -1), "error: invalid regex", 20) == 0);
    /* A wildcard does not name the excluded tags: their messages are no results, and the drive leaves
     * them out; a subquery still sees them, as notmuch expands it without exclusions. */
    exec(db, "INSERT INTO message_tags(tag, message) SELECT t.id, m.id FROM tags t, messages m "
             "WHERE t.name = 'spam' AND m.message_id = 'msg2@example.com';"
             "UPDATE tags SET messages = messages + 1 WHERE name = 'spam';");
    ASSERT_STR_EQ(ids(ctx, db, "(tag (starts-with sp))", 0, 0, 0, -1), "");
    ASSERT_STR_EQ(ids(ctx, db, "(tag (starts-with sp))", F, 0, 0, -1), SP " " M2);
    ASSERT_STR_EQ(ids(ctx, db, "(and (tag *) (not (tag inbox)))", 0, 0, 0, -1), SE);
    ASSERT_STR_EQ(ids(ctx, db, "(thread (of (tag (starts-with sp))))", 0, 0, 0, -1), M3 " " M1);
    /* (subject (of ...)) shares the subject's words, not their stems (notmuch's expansion leaves out
     * the stemmed terms): "Planning" is not "plans" */
    static const struct fx_msg planning = {"plan1@example.org", 5, T0 + 7200, "Erin <erin@example.org>", "Erin",
                                           "bob@example.com", "Planning", "agenda", "", "text/plain", "inbox",
                                           "1:7", NULL, 4};
    exec(db, "BEGIN;");
    fx_add(db, &planning, 7);
    exec(db, "COMMIT;");
    ASSERT_STR_EQ(ids(ctx, db, "(subject plans)", F, 0, 0, -1), M3 " plan1@example.org " M2 " " M1);
    ASSERT_STR_EQ(ids(ctx, db, "(subject (of (id msg1@example.org)))", F, 0, 0, -1), M3 " " M2 " " M1);
    query_syntax = MAILDEX_QUERY_INFIX;
    talloc_free(ctx);
    maildex_db_close(db);
}

#define ND "nodate@example.org"

/* An undated message has date 0. notmuch starts an open date: range at the smallest positive double, so
 * `date:..X` and `date:..` leave it out while `date:@0..X` and the legacy `..N` keep it; a quoted date
 * is one date; and `subject:"(...)"` is a query with subject: as the default prefix, its words stemmed. */
TEST(undated_messages_and_quoted_values)
{
    maildex_db_t *db = small_store();
    static const struct fx_msg undated = {"nodate@example.org", 5, 0, "Raj Sullivan <raj@example.org>",
                                          "Raj Sullivan", "bob@example.com", "Reviews of the plan",
                                          "no date here", "", "text/plain", "inbox", "1:7", NULL, 5};
    static const struct qcase cases[] = {
        {"date:..2030", SE " " M3 " " M2 " " M1, 0},
        {"date:..", SE " " M3 " " M2 " " M1, 0},
        {"date:..@0", "", 0},
        {"date:..!", "", 0},
        {"date:@0..2030", SE " " M3 " " M2 " " M1 " " ND, 0},
        {"date:@0..@0", ND, 0},
        {"date:1970", ND, 0},
        {"..2000000000", SE " " M3 " " M2 " " M1 " " ND, 0},
        {"0..0", ND, 0},
        {"date:\"jan 1 2024\"", M3 " " M2 " " M1, 0},
        {"date:\"2024\"..2024-01", M3 " " M2 " " M1, 0},
        {"date:\"2024-01..2024-01\"", M3 " " M2 " " M1, 0},
        {"subject:\"(reviews)\"", ND, 0},
        {"subject:\"(review or report)\"", SE " " ND, 0},
        {"subject:\"(lunch plan)\"", M3 " " M2 " " M1, 0},
        {"subject:\"(plan)\"", M3 " " M2 " " M1 " " ND, 0},
        {"subject:\"(plan)\" and not subject:\"(reviews of)\"", M3 " " M2 " " M1, 0},
        {"from:\"(raj or carol)\"", M3 " " ND, 0},
        {"subject:review", "", 0},
    };
    void *ctx = talloc_new(NULL);

    fx_add(db, &undated, 6);
    check(db, cases, sizeof cases / sizeof cases[0]);
    ASSERT_STR_EQ(ids(ctx, db, "date:\"jan 1 2024..feb 2024\"", 0, 0, 0, -1),
                  "error: syntax error at position 0: Didn't understand date specification 'jan 1 2024..feb 2024'");
    ASSERT(strstr(ids(ctx, db, "date:1960..1971", 0, 0, 0, -1), "Didn't understand date specification") != NULL);
    ASSERT(strstr(ids(ctx, db, "date:\"jan 1 2024\"..2024-02", 0, 0, 0, -1), "unknown range operation") != NULL);
    talloc_free(ctx);
    maildex_db_close(db);
}

static char *thread_line(void *ctx, maildex_db_t *db, const char *text, maildex_exclude_t exclude,
                         maildex_sort_t sort)
{
    maildex_query_options_t opts = MAILDEX_QUERY_OPTIONS_INIT;
    maildex_query_t *q;
    maildex_threads_t *it;
    maildex_thread_t *t;
    char *out = talloc_strdup(ctx, "");

    opts.exclude = exclude;
    opts.exclude_tags = excluded_tags;
    opts.sort = sort;
    ASSERT_EQ(maildex_query_create(db, text, &opts, &q), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_query_search_threads(q, &it), MAILDEX_STATUS_OK);
    while (maildex_threads_next(it, &t) == MAILDEX_STATUS_OK && t) {
        out = talloc_asprintf_append(out, "%016llx %lld [%d/%d(%d)] %s; %s (",
                                     (unsigned long long) maildex_thread_id(t),
                                     (long long) maildex_thread_timestamp(t), maildex_thread_matched(t),
                                     maildex_thread_total(t), maildex_thread_files(t),
                                     maildex_thread_authors(t), maildex_thread_subject(t));
        for (const char *const *tag = maildex_thread_tags(t); *tag; tag++)
            out = talloc_asprintf_append(out, "%s%s", tag == maildex_thread_tags(t) ? "" : " ", *tag);
        out = talloc_asprintf_append(out, ") {%s} {%s}\n",
                                     maildex_thread_matched_query(t) ? maildex_thread_matched_query(t) : "null",
                                     maildex_thread_unmatched_query(t) ? maildex_thread_unmatched_query(t) : "null");
    }
    maildex_query_destroy(q);
    return out;
}

TEST(thread_summaries_as_notmuch)
{
    maildex_db_t *db = small_store();
    void *ctx = talloc_new(NULL);

    ASSERT_STR_EQ(thread_line(ctx, db, "from:carol", 0, 0),
                  "0000000000000001 1704112200 [1/3(3)] Carol| Alice Example, Bob; Lunch plans "
                  "(attachment inbox unread) {id:msg3@example.net} {id:msg1@example.org id:msg2@example.com}\n");
    ASSERT_STR_EQ(thread_line(ctx, db, "lunch", 0, MAILDEX_SORT_OLDEST_FIRST),
                  "0000000000000001 1704103200 [3/3(3)] Alice Example, Bob, Carol; Lunch plans "
                  "(attachment inbox unread) {id:msg1@example.org id:msg2@example.com id:msg3@example.net} {null}\n");
    ASSERT_STR_EQ(thread_line(ctx, db, "*", 0, 0),
                  "0000000000000003 1709287200 [1/1(2)] Alice Example; Report (replied sent) {id:sent1@example.org} {null}\n"
                  "0000000000000001 1704112200 [3/3(3)] Alice Example, Bob, Carol; Lunch plans "
                  "(attachment inbox unread) {id:msg1@example.org id:msg2@example.com id:msg3@example.net} {null}\n");
    /* flag: excluded matches are shown but not counted as matched */
    ASSERT_STR_EQ(thread_line(ctx, db, "tag:lists or tag:sent", MAILDEX_EXCLUDE_FLAG, 0),
                  "0000000000000003 1709287200 [1/1(2)] Alice Example; Report (replied sent) {id:sent1@example.org} {null}\n"
                  "0000000000000004 1701424800 [0/1(1)] Dave; [foo] Release 1.0 (deleted lists) {id:list1@lists.org} {null}\n");
    ASSERT_STR_EQ(thread_line(ctx, db, "tag:lists or tag:sent", 0, 0),
                  "0000000000000003 1709287200 [1/1(2)] Alice Example; Report (replied sent) {id:sent1@example.org} {null}\n");
    talloc_free(ctx);
    maildex_db_close(db);
}

/* A store where two threads reach far back past hundreds of other matches: thread 1 is messages 0,
 * 300, 450 and 599 (0 the newest), thread 2 messages 5, 200 and 590; every other message is a thread
 * of its own. All say "common" but 200 and 450; 5 and 599 are spam. Even messages are in folder a,
 * odd ones in b; every tenth has a second file in b. With ties, message i has the date of i % 150, so
 * 0, 150, 300 and 450 share one (three of thread 1), each four indexed in the order of their numbers
 * (keys handed out downwards, as the writer does). */
static maildex_db_t *far_store(bool ties)
{
    maildex_db_t *db = open_store(ties ? "far-ties" : "far");
    char mid[32], author[32], files[64];

    exec(db, "BEGIN;"
             "INSERT INTO folders(id, name) VALUES (1, 'a'), (2, 'b');"
             "INSERT INTO directories(id, path, folder) VALUES (1, 'a/cur', 1), (2, 'b/cur', 2);");
    for (int i = 0; i < 600; i++) {
        const int thread = i == 0 || i == 300 || i == 450 || i == 599 ? 1
                           : i == 5 || i == 200 || i == 590           ? 2
                                                                      : 100 + i;
        snprintf(mid, sizeof mid, "f%d@x", i);
        snprintf(author, sizeof author, "A%d", i % 7);
        if (i % 10 == 0)
            snprintf(files, sizeof files, "%d:f%d 2:g%d", 1 + i % 2, i, i);
        else
            snprintf(files, sizeof files, "%d:f%d", 1 + i % 2, i);
        struct fx_msg m = {mid, thread, T0 - (int64_t) (ties ? i % 150 : i) * 600, author, author, "", "topic",
                           i == 200 || i == 450 ? "rare words" : "common words", "", "text/plain",
                           i == 5 || i == 599 ? "spam inbox" : "inbox", files, NULL, 1};
        fx_add(db, &m, ties ? 1000 - i : i);
    }
    exec(db, "COMMIT;");
    return db;
}

/* Checks every thread summary of text against the message search of the same query: a thread's
 * matched query names exactly its messages the search returns, and matched counts those not flagged
 * excluded. Returns the number of threads; *thread1 gets thread 1's "matched/total". */
static int check_threads_against_messages(void *ctx, maildex_db_t *db, const char *text,
                                          maildex_exclude_t exclude, maildex_sort_t sort,
                                          char **thread1)
{
    maildex_query_options_t opts = MAILDEX_QUERY_OPTIONS_INIT;
    maildex_query_t *q;
    maildex_messages_t *mi;
    maildex_message_t *m;
    maildex_threads_t *ti;
    maildex_thread_t *t;
    GHashTable *matching = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    GHashTable *per_thread = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    GArray *first_seen = g_array_new(FALSE, FALSE, sizeof(int64_t)); /* threads as the messages reach them */
    int count = 0;

    opts.exclude = exclude;
    opts.exclude_tags = excluded_tags;
    opts.sort = sort;
    ASSERT_EQ(maildex_query_create(db, text, &opts, &q), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_query_search_messages(q, &mi), MAILDEX_STATUS_OK);
    while (maildex_messages_next(mi, &m) == MAILDEX_STATUS_OK && m) {
        int64_t th = (int64_t) maildex_message_thread(m);
        g_hash_table_insert(matching, g_strdup(maildex_message_id(m)),
                            GINT_TO_POINTER(maildex_message_excluded(m) ? 2 : 1));
        int n = GPOINTER_TO_INT(g_hash_table_lookup(per_thread, &th));
        if (n == 0)
            g_array_append_val(first_seen, th);
        g_hash_table_insert(per_thread, g_memdup2(&th, sizeof th), GINT_TO_POINTER(n + 1));
    }
    maildex_messages_destroy(mi);
    ASSERT_EQ(maildex_query_search_threads(q, &ti), MAILDEX_STATUS_OK);
    *thread1 = NULL;
    while (maildex_threads_next(ti, &t) == MAILDEX_STATUS_OK && t) {
        int64_t th = (int64_t) maildex_thread_id(t);
        const int expected = GPOINTER_TO_INT(g_hash_table_lookup(per_thread, &th));
        const char *mq = maildex_thread_matched_query(t);
        char **terms = g_strsplit(mq ? mq : "", " ", -1);
        int named = 0, counted = 0;
        ASSERT(expected > 0);
        /* threads come in the order the message stream first reaches them, as notmuch's do */
        ASSERT_EQ(th, g_array_index(first_seen, int64_t, count));
        for (char **term = terms; *term; term++) {
            if (!**term)
                continue;
            ASSERT(strncmp(*term, "id:", 3) == 0);
            int kind = GPOINTER_TO_INT(g_hash_table_lookup(matching, *term + 3));
            if (kind == 0)
                printf("# %s: thread %" PRId64 " names %s, which the search does not return\n", text, th, *term);
            ASSERT(kind != 0);
            named++;
            counted += kind == 1;
        }
        g_strfreev(terms);
        if (named != expected)
            printf("# %s: thread %" PRId64 " names %d of its %d matches\n", text, th, named, expected);
        ASSERT_EQ(named, expected);
        ASSERT_EQ(maildex_thread_matched(t), counted);
        if (th == 1)
            *thread1 = talloc_asprintf(ctx, "%d/%d", maildex_thread_matched(t), maildex_thread_total(t));
        count++;
    }
    ASSERT_EQ(count, g_hash_table_size(per_thread));
    maildex_query_destroy(q);
    g_hash_table_destroy(matching);
    g_hash_table_destroy(per_thread);
    g_array_free(first_seen, TRUE);
    return count;
}

/* Summaries learn which of a thread's messages match from the driving stream: read ahead, then one
 * ranged read, then a probe per message for what is still unknown. Each path must agree with the
 * plain message search, in both orders and every exclusion mode. */
static void far_back(bool ties)
{
    maildex_db_t *db = far_store(ties);
    void *ctx = talloc_new(NULL);
    char *first; /* thread 1's matched/total */

    /* thread 1 comes first (through message 0): 300 matches, 450 does not say common, 599 is spam */
    ASSERT_EQ(check_threads_against_messages(ctx, db, "common", MAILDEX_EXCLUDE_TRUE, 0, &first), 595);
    ASSERT_STR_EQ(first, "2/4");
    /* flagged: 599 is named as a match but not counted */
    ASSERT_EQ(check_threads_against_messages(ctx, db, "common", MAILDEX_EXCLUDE_FLAG, 0, &first), 595);
    ASSERT_STR_EQ(first, "2/4");
    /* all: the spam messages vanish from their threads */
    ASSERT_EQ(check_threads_against_messages(ctx, db, "common", MAILDEX_EXCLUDE_ALL, 0, &first), 595);
    ASSERT_STR_EQ(first, "2/3");
    ASSERT_EQ(check_threads_against_messages(ctx, db, "common", MAILDEX_EXCLUDE_FALSE, 0, &first), 595);
    ASSERT_STR_EQ(first, "3/4");
    /* oldest first: thread 1 is reached through 300 (599 hidden, 450 no match) */
    check_threads_against_messages(ctx, db, "common", MAILDEX_EXCLUDE_TRUE, MAILDEX_SORT_OLDEST_FIRST, &first);
    ASSERT_STR_EQ(first, "2/4");
    check_threads_against_messages(ctx, db, "common", MAILDEX_EXCLUDE_FLAG, MAILDEX_SORT_OLDEST_FIRST, &first);
    ASSERT_STR_EQ(first, "2/4");
    check_threads_against_messages(ctx, db, "common and not from:a3", MAILDEX_EXCLUDE_TRUE, 0, &first);
    check_threads_against_messages(ctx, db, "common or tag:spam", MAILDEX_EXCLUDE_FLAG, 0, &first);
    check_threads_against_messages(ctx, db, "words and tag:inbox", MAILDEX_EXCLUDE_TRUE,
                                   MAILDEX_SORT_OLDEST_FIRST, &first);
    /* driven from files (a message once per file), the full text probed */
    check_threads_against_messages(ctx, db, "folder:b and not rare", MAILDEX_EXCLUDE_TRUE, 0, &first);
    ASSERT_STR_EQ(first, "2/4"); /* 0 and 300 have a second file in b; 599 is spam */
    check_threads_against_messages(ctx, db, "path:b/cur and not rare", MAILDEX_EXCLUDE_FLAG,
                                   MAILDEX_SORT_OLDEST_FIRST, &first);
    ASSERT_STR_EQ(first, "2/4");
    check_threads_against_messages(ctx, db, "folder:a and common", MAILDEX_EXCLUDE_TRUE, 0, &first);
    ASSERT_STR_EQ(first, "2/4");
    talloc_free(ctx);
    maildex_db_close(db);
}

TEST(thread_matches_far_back)
{
    far_back(false);
}

/* The same where messages come in fours of one date, members of one thread among them: the stream
 * oldest first turns each four around (key-order.h), and what the summaries read ahead, range over and
 * look up must follow that order. */
TEST(thread_matches_far_back_through_equal_dates)
{
    far_back(true);
}

/* Messages of one second in the order they were indexed, both ways, as notmuch lists them (Xapian
 * breaks timestamp ties by ascending document id): a, b, c and d share a date and were indexed in that
 * order (keys handed out downwards within the second), d replying to a; e is a minute earlier, z a
 * minute later. Offset and limit cut the list as ordered; threads follow their first match, and a
 * thread's members, authors and subject take its ties in the same order. */
TEST(equal_dates_in_indexing_order)
{
    static const struct fx_msg m[] = {
        {"a@x", 1, T0, "A <a@x>", "A", "", "Alpha", "tie", "", "text/plain", "inbox", "1:a", NULL, 1},
        {"b@x", 2, T0, "B <b@x>", "B", "", "Bravo", "tie", "", "text/plain", "inbox", "1:b", NULL, 1},
        {"c@x", 3, T0, "C <c@x>", "C", "", "Charlie", "tie", "", "text/plain", "inbox", "1:c", NULL, 1},
        {"d@x", 1, T0, "D <d@x>", "D", "", "Delta", "tie", "", "text/plain", "inbox", "1:d", "a@x", 1},
        {"e@x", 4, T0 - 60, "E <e@x>", "E", "", "Echo", "early", "", "text/plain", "inbox", "1:e", NULL, 1},
        {"z@x", 5, T0 + 60, "Z <z@x>", "Z", "", "Zulu", "late", "", "text/plain", "inbox", "1:z", NULL, 1},
    };
    static const int seq[] = {1000, 999, 998, 997, 1000, 1000};
    const maildex_sort_t O = MAILDEX_SORT_OLDEST_FIRST, N = MAILDEX_SORT_NEWEST_FIRST;
    maildex_db_t *db = open_store("ties");
    void *ctx = talloc_new(NULL);

    exec(db, "BEGIN; INSERT INTO folders(id, name) VALUES (1, '');"
             "INSERT INTO directories(id, path, folder) VALUES (1, 'cur', 1);");
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
        fx_add(db, &m[i], seq[i]);
    exec(db, "COMMIT;");
    ASSERT_STR_EQ(ids(ctx, db, "*", 0, O, 0, -1), "e@x a@x b@x c@x d@x z@x");
    ASSERT_STR_EQ(ids(ctx, db, "*", 0, N, 0, -1), "z@x a@x b@x c@x d@x e@x");
    ASSERT_STR_EQ(ids(ctx, db, "*", 0, O, 2, 2), "b@x c@x");
    ASSERT_STR_EQ(ids(ctx, db, "*", 0, O, 1, 1), "a@x");
    ASSERT_STR_EQ(ids(ctx, db, "*", 0, O, 4, -1), "d@x z@x");
    ASSERT_STR_EQ(ids(ctx, db, "*", 0, O, 0, 0), "");
    ASSERT_STR_EQ(ids(ctx, db, "*", 0, N, 3, 2), "c@x d@x");
    ASSERT_STR_EQ(ids(ctx, db, "tie", 0, O, 0, -1), "a@x b@x c@x d@x");
    ASSERT_STR_EQ(ids(ctx, db, "tie and not from:b@x", 0, O, 1, 2), "c@x d@x");
    ASSERT_STR_EQ(thread_line(ctx, db, "tie", 0, O),
                  "0000000000000001 1704103200 [2/2(2)] A, D; Alpha (inbox) {id:a@x id:d@x} {null}\n"
                  "0000000000000002 1704103200 [1/1(1)] B; Bravo (inbox) {id:b@x} {null}\n"
                  "0000000000000003 1704103200 [1/1(1)] C; Charlie (inbox) {id:c@x} {null}\n");
    ASSERT_STR_EQ(thread_line(ctx, db, "tie or late", 0, N),
                  "0000000000000005 1704103260 [1/1(1)] Z; Zulu (inbox) {id:z@x} {null}\n"
                  "0000000000000001 1704103200 [2/2(2)] A, D; Alpha (inbox) {id:a@x id:d@x} {null}\n"
                  "0000000000000002 1704103200 [1/1(1)] B; Bravo (inbox) {id:b@x} {null}\n"
                  "0000000000000003 1704103200 [1/1(1)] C; Charlie (inbox) {id:c@x} {null}\n");
    ASSERT_STR_EQ(thread_line(ctx, db, "id:d@x", 0, O),
                  "0000000000000001 1704103200 [1/2(2)] D| A; Delta (inbox) {id:d@x} {id:a@x}\n");
    talloc_free(ctx);
    maildex_db_close(db);
}

/* A store of 200 messages of one second (the oldest) and `later` messages a minute apart after it. */
static maildex_db_t *run_store(int later)
{
    char label[32], mid[32];
    maildex_db_t *db;

    snprintf(label, sizeof label, "run%d", later);
    db = open_store(label);
    exec(db, "BEGIN; INSERT INTO folders(id, name) VALUES (1, '');"
             "INSERT INTO directories(id, path, folder) VALUES (1, 'cur', 1);");
    for (int i = 0; i < 200 + later; i++) {
        snprintf(mid, sizeof mid, "r%d@x", i);
        struct fx_msg m = {mid, i + 1, i < 200 ? T0 : T0 + 60 * (i - 199), "R <r@x>", "R", "", "s", "word",
                           "", "text/plain", "inbox", "", NULL, 1};
        fx_add(db, &m, i < 200 ? 1000 - i : 1000);
    }
    exec(db, "COMMIT;");
    return db;
}

/* VM steps of reading text's first `limit` messages or threads, oldest first; the Message-IDs read. */
static int64_t oldest_steps(void *ctx, maildex_db_t *db, const char *text, bool threads, int limit, char **got)
{
    maildex_query_options_t opts = MAILDEX_QUERY_OPTIONS_INIT;
    maildex_query_t *q;
    maildex_messages_t *mi;
    maildex_message_t *m;
    maildex_threads_t *ti;
    maildex_thread_t *t;
    int64_t steps = 0;

    opts.sort = MAILDEX_SORT_OLDEST_FIRST;
    opts.limit = limit;
    *got = talloc_strdup(ctx, "");
    maildex__vm_steps_sweep(db->sql);
    ASSERT_EQ(sqlite3_trace_v2(db->sql, SQLITE_TRACE_PROFILE, maildex__vm_steps_finished, &steps), SQLITE_OK);
    ASSERT_EQ(maildex_query_create(db, text, &opts, &q), MAILDEX_STATUS_OK);
    if (threads) {
        ASSERT_EQ(maildex_query_search_threads(q, &ti), MAILDEX_STATUS_OK);
        while (maildex_threads_next(ti, &t) == MAILDEX_STATUS_OK && t)
            *got = talloc_asprintf_append(*got, "%s ", maildex_thread_matched_query(t));
    } else {
        ASSERT_EQ(maildex_query_search_messages(q, &mi), MAILDEX_STATUS_OK);
        while (maildex_messages_next(mi, &m) == MAILDEX_STATUS_OK && m)
            *got = talloc_asprintf_append(*got, "%s ", maildex_message_id(m));
    }
    steps += maildex__vm_steps_sweep(db->sql);
    maildex_query_destroy(q);
    sqlite3_trace_v2(db->sql, 0, NULL, NULL);
    return steps;
}

/* Oldest first, the first results of a run of one second are the last keys of its stream: the run is
 * read whole, and no further (one key past it), so the work of --limit=2 follows the run's size, not
 * the store's. */
TEST(a_run_of_equal_dates_is_read_no_further_than_its_end)
{
    maildex_db_t *small_db = run_store(100), *big_db = run_store(3000);
    void *ctx = talloc_new(NULL);
    static const char *const queries[] = {"*", "word", "tag:inbox"};
    char *a, *b;

    for (size_t i = 0; i < 2 * (sizeof queries / sizeof queries[0]); i++) {
        int64_t s1 = oldest_steps(ctx, small_db, queries[i / 2], i % 2, 2, &a);
        int64_t s2 = oldest_steps(ctx, big_db, queries[i / 2], i % 2, 2, &b);
        printf("# %-10s %-8s VM steps %6" PRId64 " / %6" PRId64 "\n", queries[i / 2],
               i % 2 ? "threads" : "messages", s1, s2);
        ASSERT_STR_EQ(a, i % 2 ? "id:r0@x id:r1@x " : "r0@x r1@x ");
        ASSERT_STR_EQ(b, a);
        ASSERT((double) s2 < 1.5 * (double) s1);
    }
    talloc_free(ctx);
    maildex_db_close(small_db);
    maildex_db_close(big_db);
}

TEST(counts_tags_and_suggestions)
{
    maildex_db_t *db = small_store();
    maildex_query_options_t opts = MAILDEX_QUERY_OPTIONS_INIT;
    maildex_query_t *q;
    uint64_t n;
    const char *const *tags;
    char **words;

    opts.exclude_tags = excluded_tags;
    ASSERT_EQ(maildex_query_create(db, "*", &opts, &q), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_query_count_messages(q, &n), MAILDEX_STATUS_OK);
    ASSERT_EQ(n, 4);
    ASSERT_EQ(maildex_query_count_threads(q, &n), MAILDEX_STATUS_OK);
    ASSERT_EQ(n, 2);
    ASSERT_EQ(maildex_query_count_files(q, &n), MAILDEX_STATUS_OK);
    ASSERT_EQ(n, 5);
    ASSERT_EQ(maildex_query_tags(q, &tags), MAILDEX_STATUS_OK);
    char *joined = g_strjoinv(" ", (char **) tags);
    /* "*" alone lists every tag in use, as notmuch does; any other query its matches' tags. */
    ASSERT_STR_EQ(joined, "attachment deleted inbox lists replied sent spam unread");
    g_free(joined);
    maildex_query_destroy(q);
    ASSERT_EQ(maildex_query_create(db, "not tag:nosuch", &opts, &q), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_query_tags(q, &tags), MAILDEX_STATUS_OK);
    joined = g_strjoinv(" ", (char **) tags);
    ASSERT_STR_EQ(joined, "attachment inbox replied sent unread");
    g_free(joined);
    maildex_query_destroy(q);
    ASSERT_EQ(maildex_query_create(db, "folder:lists/foo", &opts, &q), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_query_count_messages(q, &n), MAILDEX_STATUS_OK);
    ASSERT_EQ(n, 1); /* the list message is excluded, the sent one counted once for two files */
    maildex_query_destroy(q);

    ASSERT_EQ(maildex_db_suggest(db, "lunhc", 3, &words), MAILDEX_STATUS_OK);
    ASSERT(words[0] != NULL);
    ASSERT_STR_EQ(words[0], "lunch");
    maildex_strings_free(words);
    ASSERT_EQ(maildex_db_suggest(db, "Lunch", 3, &words), MAILDEX_STATUS_OK);
    ASSERT(words[0] == NULL);
    maildex_strings_free(words);
    maildex_strings_free(NULL);
    maildex_query_destroy(NULL);
    maildex_db_close(db);
}

TEST_MAIN(TEST_ENTRY(every_prefix_and_operator) TEST_ENTRY(sort_offset_limit_and_errors)
              TEST_ENTRY(undated_messages_and_quoted_values) TEST_ENTRY(thread_summaries_as_notmuch)
                  TEST_ENTRY(thread_matches_far_back) TEST_ENTRY(thread_matches_far_back_through_equal_dates)
                      TEST_ENTRY(equal_dates_in_indexing_order)
                          TEST_ENTRY(a_run_of_equal_dates_is_read_no_further_than_its_end)
                              TEST_ENTRY(counts_tags_and_suggestions)
                      TEST_ENTRY(sexp_queries))
