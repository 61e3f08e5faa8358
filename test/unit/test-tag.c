/* SPDX-License-Identifier: GPL-3.0-or-later */
/* maildex_tag_check, the one place that knows which tag changes notmuch's command line allows;
 * maildex_query_tag applying notmuch's library rules (a NULL or too long tag refused before any
 * message is touched, an empty tag or one starting with '-' taken) and changing every match in one
 * transaction. Public API only. */
#include "maildex.h"
#include "test.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

TEST(tag_check_rules)
{
    const struct {
        const char *tag;
        bool add;
        maildex_status_t st;
        const char *why;
    } cases[] = {
        {"inbox", true, MAILDEX_STATUS_OK, NULL},
        {"inbox", false, MAILDEX_STATUS_OK, NULL},
        {"a-b", true, MAILDEX_STATUS_OK, NULL},
        {"", true, MAILDEX_STATUS_INVALID_ARGUMENT, "empty tag forbidden"},
        {"", false, MAILDEX_STATUS_OK, NULL},
        {"-x", true, MAILDEX_STATUS_INVALID_ARGUMENT, "tag starting with '-' forbidden"},
        {"-x", false, MAILDEX_STATUS_OK, NULL},
        {"-", true, MAILDEX_STATUS_INVALID_ARGUMENT, "tag starting with '-' forbidden"},
        {NULL, true, MAILDEX_STATUS_INVALID_ARGUMENT, "tag is NULL"},
        {NULL, false, MAILDEX_STATUS_INVALID_ARGUMENT, "tag is NULL"},
    };

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *why = "unset";
        ASSERT_EQ(maildex_tag_check(cases[i].tag, cases[i].add, &why), cases[i].st);
        if (cases[i].why)
            ASSERT_STR_EQ(why, cases[i].why);
        else
            ASSERT(why == NULL);
        ASSERT_EQ(maildex_tag_check(cases[i].tag, cases[i].add, NULL), cases[i].st);
    }
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    ASSERT(f != NULL);
    fputs(text, f);
    ASSERT(fclose(f) == 0);
}

/* Tags of the one message in db, space-joined. */
static void expect_tags(maildex_db_t *db, const char *want)
{
    maildex_query_t *q;
    const char *const *tags;
    char got[256] = "";

    ASSERT_EQ(maildex_query_create(db, "*", NULL, &q), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_query_tags(q, &tags), MAILDEX_STATUS_OK);
    for (size_t i = 0; tags[i]; i++)
        snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s", i ? " " : "", tags[i]);
    ASSERT_STR_EQ(got, want);
    maildex_query_destroy(q);
}

/* A Maildir under a new scratch directory with n messages in cur/, indexed into a new database. */
static maildex_db_t *indexed_store(const char *label, int n)
{
    const char *dir = test_scratch_dir(label);
    const char *const new_tags[] = {"inbox", NULL};
    maildex_index_options_t opts = {.new_tags = new_tags};
    char mail[4200], path[4300];
    maildex_db_t *db = NULL;

    snprintf(mail, sizeof mail, "%s/mail", dir);
    ASSERT(mkdir(mail, 0700) == 0);
    snprintf(path, sizeof path, "%s/cur", mail);
    ASSERT(mkdir(path, 0700) == 0);
    for (int i = 1; i <= n; i++) {
        char text[200];
        snprintf(path, sizeof path, "%s/cur/%d:2,", mail, i);
        snprintf(text, sizeof text, "From: a@example.org\nSubject: s%d\nMessage-ID: <m%d@example.org>\n\nbody\n",
                 i, i);
        write_file(path, text);
    }
    snprintf(path, sizeof path, "%s/maildex.db", dir);
    ASSERT_EQ(maildex_db_open(path, mail, MAILDEX_DB_CREATE, &db, NULL), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_index(db, &opts, NULL), MAILDEX_STATUS_OK);
    return db;
}

static maildex_status_t tag_query(maildex_db_t *db, const char *query, const maildex_tag_op_t *ops,
                                  size_t n, uint64_t *changed)
{
    maildex_query_t *q;
    maildex_status_t st;

    ASSERT_EQ(maildex_query_create(db, query, NULL, &q), MAILDEX_STATUS_OK);
    st = maildex_query_tag(q, ops, n, 0, changed);
    maildex_query_destroy(q);
    return st;
}

TEST(query_tag_refuses_a_too_long_tag_before_any_change)
{
    char long_tag[MAILDEX_TAG_MAX + 2], longest[MAILDEX_TAG_MAX + 1];
    maildex_db_t *db = indexed_store("tag-too-long", 1);
    maildex_tag_op_t ops[] = {{"good", true}, {"inbox", false}, {long_tag, true}};

    memset(long_tag, 'x', MAILDEX_TAG_MAX + 1);
    long_tag[MAILDEX_TAG_MAX + 1] = '\0';
    ASSERT_EQ(tag_query(db, "*", ops, 3, NULL), MAILDEX_STATUS_INVALID_ARGUMENT);
    ASSERT(strstr(maildex_db_errmsg(db), "tag value is too long (exceeds 200 bytes)") != NULL);
    expect_tags(db, "inbox");
    /* A change that reaches no message is no error (notmuch's library sees no message), and
     * removing a tag that long finds nothing to remove. */
    ASSERT_EQ(tag_query(db, "tag:nosuchtag", ops, 3, NULL), MAILDEX_STATUS_OK);
    ops[2].add = false;
    ASSERT_EQ(tag_query(db, "*", ops, 3, NULL), MAILDEX_STATUS_OK);
    expect_tags(db, "good");
    /* MAILDEX_TAG_MAX bytes is allowed. */
    memset(longest, 'y', MAILDEX_TAG_MAX);
    longest[MAILDEX_TAG_MAX] = '\0';
    ops[0].tag = longest;
    ASSERT_EQ(tag_query(db, "*", ops, 1, NULL), MAILDEX_STATUS_OK);
    ASSERT_EQ(tag_query(db, "*", (const maildex_tag_op_t[]){{NULL, true}}, 1, NULL),
              MAILDEX_STATUS_INVALID_ARGUMENT);
    maildex_db_close(db);
}

TEST(query_tag_takes_what_notmuch_library_takes)
{
    maildex_db_t *db = indexed_store("tag-library-rules", 1);
    const maildex_tag_op_t ops[] = {{"-x", true}, {"", true}, {"inbox", false}};

    ASSERT_EQ(tag_query(db, "*", ops, 3, NULL), MAILDEX_STATUS_OK);
    expect_tags(db, " -x");
    maildex_db_close(db);
}

/* More messages than the old batches of 2,000: one call is one transaction, so it bumps the
 * database's revision once and stamps every changed message with it. */
TEST(query_tag_is_one_transaction)
{
    maildex_db_t *db = indexed_store("tag-one-transaction", 2100);
    const maildex_tag_op_t ops[] = {{"all", true}};
    uint64_t before, after, changed;
    maildex_query_t *q;
    maildex_messages_t *it;
    maildex_message_t *m;
    uint64_t count = 0;

    ASSERT_EQ(maildex_db_revision(db, NULL, &before), MAILDEX_STATUS_OK);
    ASSERT_EQ(tag_query(db, "*", ops, 1, &changed), MAILDEX_STATUS_OK);
    ASSERT_EQ(changed, 2100);
    ASSERT_EQ(maildex_db_revision(db, NULL, &after), MAILDEX_STATUS_OK);
    ASSERT_EQ(after, before + 1);
    ASSERT_EQ(maildex_query_create(db, "tag:all", NULL, &q), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_query_count_messages(q, &count), MAILDEX_STATUS_OK);
    ASSERT_EQ(count, 2100);
    maildex_query_destroy(q);
    /* lastmod:A..B selects by the revision each message was stamped with. */
    {
        char text[64];
        snprintf(text, sizeof text, "lastmod:%" PRIu64 "..%" PRIu64, after, after);
        ASSERT_EQ(maildex_query_create(db, text, NULL, &q), MAILDEX_STATUS_OK);
        ASSERT_EQ(maildex_query_search_messages(q, &it), MAILDEX_STATUS_OK);
        while (maildex_messages_next(it, &m) == MAILDEX_STATUS_OK && m)
            count--;
        ASSERT_EQ(count, 0);
        maildex_query_destroy(q);
    }
    maildex_db_close(db);
}

TEST_MAIN(
    TEST_ENTRY(tag_check_rules)
    TEST_ENTRY(query_tag_refuses_a_too_long_tag_before_any_change)
    TEST_ENTRY(query_tag_takes_what_notmuch_library_takes)
    TEST_ENTRY(query_tag_is_one_transaction)
)
