/* maildex_tag_check, the one place that knows which tag changes notmuch allows, and maildex_query_tag
 * refusing a change it forbids before touching any message. Public API only. */
#include "maildex.h"
#include "test.h"

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

TEST(query_tag_refuses_a_forbidden_change_before_any)
{
    const char *dir = test_scratch_dir("tag-refuse");
    const char *const new_tags[] = {"inbox", NULL};
    maildex_index_options_t opts = {.new_tags = new_tags};
    char mail[4200], path[4300];
    maildex_db_t *db = NULL;
    maildex_query_t *q;
    const maildex_tag_op_t ops[] = {{"good", true}, {"inbox", false}, {"-bad", true}};

    snprintf(mail, sizeof mail, "%s/mail", dir);
    ASSERT(mkdir(mail, 0700) == 0);
    snprintf(path, sizeof path, "%s/cur", mail);
    ASSERT(mkdir(path, 0700) == 0);
    snprintf(path, sizeof path, "%s/cur/1:2,", mail);
    write_file(path, "From: a@example.org\nSubject: s\nMessage-ID: <m1@example.org>\n\nbody\n");
    snprintf(path, sizeof path, "%s/maildex.db", dir);
    ASSERT_EQ(maildex_db_open(path, mail, MAILDEX_DB_CREATE, &db, NULL), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_index(db, &opts, NULL), MAILDEX_STATUS_OK);

    ASSERT_EQ(maildex_query_create(db, "*", NULL, &q), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_query_tag(q, ops, 3, 0, NULL), MAILDEX_STATUS_INVALID_ARGUMENT);
    ASSERT_STR_EQ(maildex_db_errmsg(db), "cannot add tag '-bad': tag starting with '-' forbidden");
    maildex_query_destroy(q);
    expect_tags(db, "inbox");

    ASSERT_EQ(maildex_query_create(db, "*", NULL, &q), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_query_tag(q, ops, 2, 0, NULL), MAILDEX_STATUS_OK);
    maildex_query_destroy(q);
    expect_tags(db, "good");
    maildex_db_close(db);
}

TEST_MAIN(
    TEST_ENTRY(tag_check_rules)
    TEST_ENTRY(query_tag_refuses_a_forbidden_change_before_any)
)
