/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What restore, dump and compact stand on, through the public API: message properties (set, replace,
 * remove, read in order, searched with property:, kept by reindex but for "index.*"), tagging one
 * message by its Message-ID, atomic sections, read snapshots, the database's config listed by prefix,
 * and compaction keeping every row while it shrinks the file (both ways: copying before it takes the
 * write lock, and holding it throughout, which maildex__compact reaches). */
#include "store/maildex-private.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    ASSERT(f != NULL);
    fputs(text, f);
    ASSERT(fclose(f) == 0);
}

/* A mail root under a scratch directory with m1 (cur/1:2,) and m2 (cur/2:2,S), indexed with new.tags
 * inbox unread; *mail and *dbpath are static buffers. */
static maildex_db_t *two_messages(const char *label, char **mail_out, char **db_out)
{
    static char mail[4200], dbpath[4300];
    const char *dir = test_scratch_dir(label);
    const char *const new_tags[] = {"inbox", "unread", NULL};
    maildex_index_options_t opts = {.new_tags = new_tags, .synchronize_flags = true};
    char path[4400];
    maildex_db_t *db = NULL;

    snprintf(mail, sizeof mail, "%s/mail", dir);
    ASSERT(mkdir(mail, 0700) == 0);
    snprintf(path, sizeof path, "%s/cur", mail);
    ASSERT(mkdir(path, 0700) == 0);
    snprintf(path, sizeof path, "%s/cur/1:2,", mail);
    write_file(path, "From: a@example.org\nSubject: one\nDate: Mon, 1 Jan 2024 10:00:00 +0000\n"
                     "Message-ID: <m1@example.org>\n\nbody one\n");
    snprintf(path, sizeof path, "%s/cur/2:2,S", mail);
    write_file(path, "From: b@example.org\nSubject: two\nDate: Mon, 1 Jan 2024 11:00:00 +0000\n"
                     "Message-ID: <m2@example.org>\n\nbody two\n");
    snprintf(dbpath, sizeof dbpath, "%s/maildex.db", dir);
    ASSERT_EQ(maildex_db_open(dbpath, mail, MAILDEX_DB_CREATE, &db, NULL), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_index(db, &opts, NULL), MAILDEX_STATUS_OK);
    if (mail_out)
        *mail_out = mail;
    if (db_out)
        *db_out = dbpath;
    return db;
}

/* "k=v k=v ..." of the one message query matches, or "none" when nothing matches. */
static void expect_properties(maildex_db_t *db, const char *query, const char *want)
{
    maildex_query_options_t opts = MAILDEX_QUERY_OPTIONS_INIT;
    maildex_query_t *q;
    maildex_messages_t *it;
    maildex_message_t *m;
    const maildex_pair_t *p;
    char got[512] = "none";

    opts.exclude = MAILDEX_EXCLUDE_FALSE;
    ASSERT_EQ(maildex_query_create(db, query, &opts, &q), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_query_search_messages(q, &it), MAILDEX_STATUS_OK);
    if (maildex_messages_next(it, &m) == MAILDEX_STATUS_OK && m) {
        ASSERT_EQ(maildex_message_properties(m, &p), MAILDEX_STATUS_OK);
        got[0] = '\0';
        for (size_t i = 0; p[i].key; i++)
            snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s=%s", i ? " " : "", p[i].key,
                     p[i].value);
    }
    ASSERT_STR_EQ(got, want);
    maildex_query_destroy(q);
}

/* The messages query matches, counted one by one (a stored count is written at commit). */
static uint64_t count(maildex_db_t *db, const char *query)
{
    maildex_query_options_t opts = MAILDEX_QUERY_OPTIONS_INIT;
    maildex_query_t *q;
    maildex_messages_t *it;
    maildex_message_t *m;
    uint64_t n = 0;

    opts.exclude = MAILDEX_EXCLUDE_FALSE;
    ASSERT_EQ(maildex_query_create(db, query, &opts, &q), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_query_search_messages(q, &it), MAILDEX_STATUS_OK);
    while (maildex_messages_next(it, &m) == MAILDEX_STATUS_OK && m)
        n++;
    maildex_query_destroy(q);
    return n;
}

/* property_counts (sql/0003) says what the properties table holds. */
static void expect_counts_agree(maildex_db_t *db)
{
    sqlite3_stmt *stmt;

    ASSERT_EQ(sqlite3_prepare_v2(db->sql,
                                 "SELECT (SELECT count(*) FROM (SELECT key, value, count(*) FROM properties "
                                 "GROUP BY key, value EXCEPT SELECT key, value, messages FROM property_counts)) + "
                                 "(SELECT count(*) FROM (SELECT key, value, messages FROM property_counts EXCEPT "
                                 "SELECT key, value, count(*) FROM properties GROUP BY key, value))",
                                 -1, &stmt, NULL),
              SQLITE_OK);
    ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
    ASSERT_EQ(sqlite3_column_int64(stmt, 0), 0);
    sqlite3_finalize(stmt);
}

static uint64_t revision(maildex_db_t *db)
{
    uint64_t r = 0;

    ASSERT_EQ(maildex_db_revision(db, NULL, &r), MAILDEX_STATUS_OK);
    return r;
}

TEST(properties_set_replace_remove)
{
    maildex_db_t *db = two_messages("props", NULL, NULL);
    const maildex_pair_t three[] = {{"b", "x y"}, {"a", "2"}, {"a", "1"}};
    const maildex_pair_t one[] = {{"a", "2"}};
    const maildex_pair_t bad[] = {{"c", "1"}, {"k=v", "1"}};
    uint64_t r;

    expect_properties(db, "id:m1@example.org", "");
    r = revision(db);
    ASSERT_EQ(maildex_db_set_properties(db, "m1@example.org", three, 3, false), MAILDEX_STATUS_OK);
    expect_properties(db, "id:m1@example.org", "a=1 a=2 b=x y");
    ASSERT_LT(r, revision(db));
    ASSERT_EQ(count(db, "property:a=1"), 1);
    ASSERT_EQ(count(db, "property:\"b=x y\""), 1);
    ASSERT_EQ(count(db, "property:a=3"), 0);
    /* adding what is there changes nothing, not even the revision */
    r = revision(db);
    ASSERT_EQ(maildex_db_set_properties(db, "m1@example.org", one, 1, false), MAILDEX_STATUS_OK);
    ASSERT_EQ(revision(db), r);
    ASSERT_EQ(maildex_db_set_properties(db, "m1@example.org", one, 1, true), MAILDEX_STATUS_OK);
    expect_properties(db, "id:m1@example.org", "a=2");
    ASSERT_EQ(count(db, "property:a=1"), 0);
    /* a key holding '=' is refused before anything changes */
    ASSERT_EQ(maildex_db_set_properties(db, "m1@example.org", bad, 2, false), MAILDEX_STATUS_INVALID_ARGUMENT);
    ASSERT_STR_EQ(maildex_db_errmsg(db), "invalid property key 'k=v': it contains '='");
    expect_properties(db, "id:m1@example.org", "a=2");
    ASSERT_EQ(maildex_db_set_properties(db, "nope@example.org", one, 1, false), MAILDEX_STATUS_NOT_FOUND);
    ASSERT_STR_EQ(maildex_db_errmsg(db), "no message with Message-ID 'nope@example.org'");
    /* remove: one pair, every value of a key, everything */
    ASSERT_EQ(maildex_db_set_properties(db, "m1@example.org", three, 3, false), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_db_remove_properties(db, "m1@example.org", "a", "1"), MAILDEX_STATUS_OK);
    expect_properties(db, "id:m1@example.org", "a=2 b=x y");
    ASSERT_EQ(maildex_db_remove_properties(db, "m1@example.org", "a", NULL), MAILDEX_STATUS_OK);
    expect_properties(db, "id:m1@example.org", "b=x y");
    ASSERT_EQ(maildex_db_set_properties(db, "m2@example.org", three, 3, false), MAILDEX_STATUS_OK);
    expect_counts_agree(db);
    ASSERT_EQ(maildex_db_remove_properties(db, "m1@example.org", NULL, "ignored"), MAILDEX_STATUS_OK);
    expect_properties(db, "id:m1@example.org", "");
    expect_properties(db, "id:m2@example.org", "a=1 a=2 b=x y");
    expect_counts_agree(db);
    ASSERT_EQ(maildex_db_remove_properties(db, "m2@example.org", NULL, NULL), MAILDEX_STATUS_OK);
    expect_properties(db, "id:m2@example.org", "");
    expect_counts_agree(db);
    ASSERT_EQ(maildex_db_close(db), MAILDEX_STATUS_OK);
}

TEST(reindex_drops_only_index_properties)
{
    maildex_db_t *db = two_messages("props-reindex", NULL, NULL);
    const maildex_pair_t pairs[] = {{"index.decryption", "success"}, {"index", "kept"}, {"indexx", "kept"},
                                    {"foo", "bar"}, {"index.repaired", "mixedup"}};
    maildex_query_options_t opts = MAILDEX_QUERY_OPTIONS_INIT;
    maildex_query_t *q;
    uint64_t n = 0;

    ASSERT_EQ(maildex_db_set_properties(db, "m1@example.org", pairs, 5, false), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_db_set_properties(db, "m2@example.org", pairs, 5, false), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_query_create(db, "id:m1@example.org", &opts, &q), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_reindex(q, MAILDEX_DECRYPT_AUTO, &n), MAILDEX_STATUS_OK);
    ASSERT_EQ(n, 1);
    maildex_query_destroy(q);
    expect_properties(db, "id:m1@example.org", "foo=bar index=kept indexx=kept");
    expect_counts_agree(db);
    expect_properties(db, "id:m2@example.org",
                      "foo=bar index=kept index.decryption=success index.repaired=mixedup indexx=kept");
    ASSERT_EQ(maildex_db_close(db), MAILDEX_STATUS_OK);
}

static void expect_tags_of(maildex_db_t *db, const char *id, const char *want)
{
    char query[256], got[256] = "";
    maildex_query_options_t opts = MAILDEX_QUERY_OPTIONS_INIT;
    maildex_query_t *q;
    maildex_messages_t *it;
    maildex_message_t *m;
    const char *const *tags;

    opts.exclude = MAILDEX_EXCLUDE_FALSE;
    snprintf(query, sizeof query, "id:%s", id);
    ASSERT_EQ(maildex_query_create(db, query, &opts, &q), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_query_search_messages(q, &it), MAILDEX_STATUS_OK);
    ASSERT(maildex_messages_next(it, &m) == MAILDEX_STATUS_OK && m);
    ASSERT_EQ(maildex_message_tags(m, &tags), MAILDEX_STATUS_OK);
    for (size_t i = 0; tags[i]; i++)
        snprintf(got + strlen(got), sizeof got - strlen(got), "%s[%s]", i ? " " : "", tags[i]);
    ASSERT_STR_EQ(got, want);
    maildex_query_destroy(q);
}

static bool exists(const char *mail, const char *name)
{
    char path[4500];

    snprintf(path, sizeof path, "%s/cur/%s", mail, name);
    return access(path, F_OK) == 0;
}

TEST(tag_one_message_by_id)
{
    char *mail;
    maildex_db_t *db = two_messages("tag-by-id", &mail, NULL);
    const maildex_tag_op_t odd[] = {{"", true}, {"-x", true}, {"inbox", false}};
    const maildex_tag_op_t restore[] = {{"inbox", true}, {"unread", true}};
    const maildex_tag_op_t null_tag[] = {{NULL, true}};
    maildex_query_t *q;
    bool changed = false;

    /* restore's tags are not checked: a dump may hold the empty tag, or one starting with '-' */
    ASSERT_EQ(maildex_db_tag_message(db, "m1@example.org", odd, 3, MAILDEX_TAG_SYNC_FLAGS, &changed),
              MAILDEX_STATUS_OK);
    ASSERT(changed);
    expect_tags_of(db, "m1@example.org", "[] [-x] [unread]");
    ASSERT_EQ(maildex_db_tag_message(db, "m1@example.org", odd, 3, MAILDEX_TAG_SYNC_FLAGS, &changed),
              MAILDEX_STATUS_OK);
    ASSERT(!changed);
    ASSERT_EQ(maildex_db_tag_message(db, "nope@example.org", odd, 3, 0, &changed), MAILDEX_STATUS_NOT_FOUND);
    ASSERT_STR_EQ(maildex_db_errmsg(db), "no message with Message-ID 'nope@example.org'");
    ASSERT_EQ(maildex_db_tag_message(db, "m1@example.org", null_tag, 1, 0, NULL), MAILDEX_STATUS_INVALID_ARGUMENT);

    /* m2's file says seen (S) but its tags say unread: a restore that changes nothing renames
     * nothing, as notmuch's restore; tag --remove-all renames every match */
    ASSERT_EQ(maildex_db_tag_message(db, "m2@example.org", restore, 2, 0, NULL), MAILDEX_STATUS_OK);
    expect_tags_of(db, "m2@example.org", "[inbox] [unread]");
    ASSERT(exists(mail, "2:2,S"));
    ASSERT_EQ(maildex_db_tag_message(db, "m2@example.org", restore, 2,
                                     MAILDEX_TAG_SYNC_FLAGS | MAILDEX_TAG_REMOVE_ALL, &changed),
              MAILDEX_STATUS_OK);
    ASSERT(!changed);
    ASSERT(exists(mail, "2:2,S"));
    ASSERT_EQ(maildex_query_create(db, "id:m2@example.org", NULL, &q), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_query_tag(q, restore, 2, MAILDEX_TAG_SYNC_FLAGS | MAILDEX_TAG_REMOVE_ALL, NULL),
              MAILDEX_STATUS_OK);
    maildex_query_destroy(q);
    ASSERT(exists(mail, "2:2,"));
    /* with a change, the file follows the tags */
    ASSERT_EQ(maildex_db_tag_message(db, "m2@example.org", restore + 1, 1,
                                     MAILDEX_TAG_SYNC_FLAGS | MAILDEX_TAG_REMOVE_ALL, &changed),
              MAILDEX_STATUS_OK);
    ASSERT(changed);
    ASSERT(exists(mail, "2:2,"));
    expect_tags_of(db, "m2@example.org", "[unread]");
    ASSERT_EQ(maildex_db_tag_message(db, "m2@example.org", NULL, 0,
                                     MAILDEX_TAG_SYNC_FLAGS | MAILDEX_TAG_REMOVE_ALL, &changed),
              MAILDEX_STATUS_OK);
    ASSERT(exists(mail, "2:2,S"));
    expect_tags_of(db, "m2@example.org", "");
    ASSERT_EQ(maildex_db_close(db), MAILDEX_STATUS_OK);
}

TEST(atomic_section_is_one_transaction)
{
    char *dbpath;
    maildex_db_t *db = two_messages("atomic", NULL, &dbpath), *other = NULL;
    const maildex_tag_op_t x[] = {{"x", true}};

    ASSERT_EQ(maildex_db_open(dbpath, "/", MAILDEX_DB_READ_ONLY, &other, NULL), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_db_begin_atomic(db), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_db_begin_atomic(db), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_db_tag_message(db, "m1@example.org", x, 1, 0, NULL), MAILDEX_STATUS_OK);
    /* a message that is not there is not a failure of the section */
    ASSERT_EQ(maildex_db_tag_message(db, "nope@example.org", x, 1, 0, NULL), MAILDEX_STATUS_NOT_FOUND);
    ASSERT_EQ(maildex_db_end_atomic(db), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_db_tag_message(db, "m2@example.org", x, 1, 0, NULL), MAILDEX_STATUS_OK);
    ASSERT_EQ(count(other, "tag:x"), 0); /* nothing committed before the outermost end */
    ASSERT_EQ(count(db, "tag:x"), 2);
    ASSERT_EQ(maildex_db_end_atomic(db), MAILDEX_STATUS_OK);
    ASSERT_EQ(count(other, "tag:x"), 2);
    ASSERT_EQ(maildex_db_close(other), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_db_close(db), MAILDEX_STATUS_OK);
}

TEST(read_transaction_is_a_snapshot)
{
    char *dbpath;
    maildex_db_t *db = two_messages("snapshot", NULL, &dbpath), *reader = NULL;
    const maildex_tag_op_t x[] = {{"x", true}};

    ASSERT_EQ(maildex_db_open(dbpath, "/", MAILDEX_DB_READ_ONLY, &reader, NULL), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_db_begin_read(reader), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_db_begin_read(reader), MAILDEX_STATUS_INVALID_ARGUMENT);
    ASSERT_EQ(count(reader, "tag:x"), 0);
    ASSERT_EQ(maildex_db_tag_message(db, "m1@example.org", x, 1, 0, NULL), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_db_config_set(db, "query.x", "tag:x"), MAILDEX_STATUS_OK);
    ASSERT_EQ(count(reader, "tag:x"), 0);
    ASSERT_EQ(count(reader, "*"), 2);
    ASSERT_EQ(maildex_db_end_read(reader), MAILDEX_STATUS_OK);
    ASSERT_EQ(count(reader, "tag:x"), 1);
    /* no writes inside a read */
    ASSERT_EQ(maildex_db_begin_read(db), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_db_tag_message(db, "m1@example.org", x, 1, 0, NULL), MAILDEX_STATUS_INVALID_ARGUMENT);
    ASSERT_EQ(maildex_db_end_read(db), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_db_close(reader), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_db_close(db), MAILDEX_STATUS_OK);
}

TEST(config_list_by_prefix)
{
    maildex_db_t *db = two_messages("config-list", NULL, NULL);
    const maildex_pair_t *p;

    ASSERT_EQ(maildex_db_config_set(db, "query.b", "tag:b"), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_db_config_set(db, "query.a", "tag:a"), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_db_config_set(db, "queryx", "1"), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_db_config_set(db, "user.name", "Me"), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_db_config_list(db, "query.", &p), MAILDEX_STATUS_OK);
    ASSERT_STR_EQ(p[0].key, "query.a");
    ASSERT_STR_EQ(p[0].value, "tag:a");
    ASSERT_STR_EQ(p[1].key, "query.b");
    ASSERT(p[2].key == NULL && p[2].value == NULL);
    ASSERT_EQ(maildex_db_config_list(db, "", &p), MAILDEX_STATUS_OK);
    ASSERT_STR_EQ(p[2].key, "queryx");
    ASSERT_STR_EQ(p[3].key, "user.name");
    ASSERT(p[4].key == NULL);
    ASSERT_EQ(maildex_db_config_list(db, "zzz", &p), MAILDEX_STATUS_OK);
    ASSERT(p[0].key == NULL);
    ASSERT_EQ(maildex_db_close(db), MAILDEX_STATUS_OK);
}

static uint64_t file_size(const char *path)
{
    struct stat sb;

    ASSERT(stat(path, &sb) == 0);
    return (uint64_t) sb.st_size;
}

TEST(compact_keeps_every_row_and_shrinks)
{
    char *dbpath, backup[4400];
    maildex_db_t *db = two_messages("compact", NULL, &dbpath), *old = NULL;
    const maildex_pair_t pair = {"k", "v"};
    const maildex_tag_op_t big[] = {{"t", true}};
    uint64_t before = 0, after = 0;
    char tag[64];

    /* make free pages: many tags added, then removed */
    ASSERT_EQ(maildex_db_begin_atomic(db), MAILDEX_STATUS_OK);
    for (int i = 0; i < 3000; i++) {
        maildex_tag_op_t op = {tag, true};
        snprintf(tag, sizeof tag, "a-rather-long-tag-name-number-%d", i);
        ASSERT_EQ(maildex_db_tag_message(db, "m1@example.org", &op, 1, 0, NULL), MAILDEX_STATUS_OK);
        op.add = false;
        ASSERT_EQ(maildex_db_tag_message(db, "m1@example.org", &op, 1, 0, NULL), MAILDEX_STATUS_OK);
    }
    ASSERT_EQ(maildex_db_end_atomic(db), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_db_set_properties(db, "m2@example.org", &pair, 1, false), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_db_tag_message(db, "m2@example.org", big, 1, 0, NULL), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_db_config_set(db, "query.t", "tag:t"), MAILDEX_STATUS_OK);

    snprintf(backup, sizeof backup, "%s.old", dbpath);
    ASSERT_EQ(maildex_db_compact(db, backup, &before, &after), MAILDEX_STATUS_OK);
    printf("# %" PRIu64 " -> %" PRIu64 " bytes\n", before, after);
    ASSERT_LT(after, before);
    ASSERT_EQ(file_size(dbpath), after);
    ASSERT_EQ(count(db, "tag:t and property:k=v"), 1);
    ASSERT_EQ(count(db, "body"), 2);
    expect_tags_of(db, "m1@example.org", "[inbox] [unread]");
    /* the backup is the database as it was, and a second one is refused */
    ASSERT_EQ(maildex_db_open(backup, "/", MAILDEX_DB_READ_ONLY, &old, NULL), MAILDEX_STATUS_OK);
    ASSERT_EQ(count(old, "tag:t and property:k=v"), 1);
    ASSERT_EQ(maildex_db_close(old), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_db_compact(db, backup, NULL, NULL), MAILDEX_STATUS_INVALID_ARGUMENT);
    ASSERT(strstr(maildex_db_errmsg(db), "cannot create the backup") != NULL);
    ASSERT_EQ(maildex_db_compact(db, NULL, NULL, NULL), MAILDEX_STATUS_OK);
    ASSERT_EQ(count(db, "tag:t and property:k=v"), 1);
    ASSERT_EQ(maildex_db_close(db), MAILDEX_STATUS_OK);
}

/* The way taken when other writers keep committing: the write lock held from before the copy. */
TEST(compact_holding_the_lock_throughout)
{
    char *dbpath, backup[4400];
    maildex_db_t *db = two_messages("compact-locked", NULL, &dbpath), *other = NULL, *old = NULL;
    const maildex_tag_op_t x[] = {{"x", true}};
    uint64_t before = 0, after = 0;

    ASSERT_EQ(maildex_db_tag_message(db, "m1@example.org", x, 1, 0, NULL), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_db_open(dbpath, "/", MAILDEX_DB_READ_ONLY, &other, NULL), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_db_begin_read(other), MAILDEX_STATUS_OK);
    ASSERT_EQ(count(other, "tag:x"), 1);
    snprintf(backup, sizeof backup, "%s.old", dbpath);
    ASSERT_EQ(maildex__compact(db, backup, 0, &before, &after), MAILDEX_STATUS_OK);
    ASSERT(after > 0 && before > 0);
    ASSERT_EQ(count(other, "tag:x"), 1); /* the reader's snapshot */
    ASSERT_EQ(maildex_db_end_read(other), MAILDEX_STATUS_OK);
    ASSERT_EQ(count(other, "tag:x"), 1);
    ASSERT_EQ(count(other, "body"), 2);
    ASSERT_EQ(count(db, "tag:x"), 1);
    ASSERT_EQ(maildex_db_open(backup, "/", MAILDEX_DB_READ_ONLY, &old, NULL), MAILDEX_STATUS_OK);
    ASSERT_EQ(count(old, "tag:x"), 1);
    ASSERT_EQ(maildex_db_close(old), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_db_close(other), MAILDEX_STATUS_OK);
    /* neither the copy nor the placeholder is left beside the database */
    {
        char cmd[4500];
        snprintf(cmd, sizeof cmd, "test -z \"$(ls %s.compact-* 2>/dev/null)\"", dbpath);
        ASSERT_EQ(system(cmd), 0);
    }
    ASSERT_EQ(maildex_db_close(db), MAILDEX_STATUS_OK);
}

TEST_MAIN(
    TEST_ENTRY(properties_set_replace_remove)
    TEST_ENTRY(reindex_drops_only_index_properties)
    TEST_ENTRY(tag_one_message_by_id)
    TEST_ENTRY(atomic_section_is_one_transaction)
    TEST_ENTRY(read_transaction_is_a_snapshot)
    TEST_ENTRY(config_list_by_prefix)
    TEST_ENTRY(compact_keeps_every_row_and_shrinks)
    TEST_ENTRY(compact_holding_the_lock_throughout)
)
