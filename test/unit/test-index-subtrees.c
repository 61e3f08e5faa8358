/* SPDX-License-Identifier: GPL-3.0-or-later */
/* maildex_index limited to subtrees (maildex_index_options_t.directories), the threads it says
 * changed (thread_changed), and maildex_db_directories: what `watch` builds on. Public API only. */
#include "maildex.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct store {
    char mail[4096];
    maildex_db_t *db;
};

static void make_dir(const struct store *s, const char *rel)
{
    char path[4200];

    snprintf(path, sizeof path, "%s/%s", s->mail, rel);
    ASSERT(mkdir(path, 0700) == 0);
}

static void put_message(const struct store *s, const char *rel, const char *id, const char *parent)
{
    char path[4200];
    FILE *f;

    snprintf(path, sizeof path, "%s/%s", s->mail, rel);
    ASSERT((f = fopen(path, "w")) != NULL);
    fprintf(f, "From: a@example.org\nSubject: %s\nMessage-ID: <%s>\n", id, id);
    if (parent)
        fprintf(f, "In-Reply-To: <%s>\n", parent);
    fprintf(f, "\nbody\n");
    ASSERT(fclose(f) == 0);
}

static void move_file(const struct store *s, const char *from, const char *to)
{
    char a[4200], b[4200];

    snprintf(a, sizeof a, "%s/%s", s->mail, from);
    snprintf(b, sizeof b, "%s/%s", s->mail, to);
    ASSERT(rename(a, b) == 0);
}

/* Folders a/ and b/ (cur, new, tmp each) and an ignored one, a message in a/cur, all indexed. */
static void open_store(struct store *s, const char *label)
{
    const char *dir = test_scratch_dir(label);
    const char *const folders[] = {"a", "a/cur", "a/new", "a/tmp", "b", "b/cur", "b/new", "b/tmp",
                                   "skipped", NULL};
    const char *const ignore[] = {"skipped", NULL};
    maildex_index_options_t opts = {.ignore = ignore};
    char path[4200];

    snprintf(s->mail, sizeof s->mail, "%s/mail", dir);
    ASSERT(mkdir(s->mail, 0700) == 0);
    for (size_t i = 0; folders[i]; i++)
        make_dir(s, folders[i]);
    put_message(s, "a/cur/first:2,", "first@x", NULL);
    snprintf(path, sizeof path, "%s/maildex.db", dir);
    ASSERT_EQ(maildex_db_open(path, s->mail, MAILDEX_DB_CREATE, &s->db, NULL), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_index(s->db, &opts, NULL), MAILDEX_STATUS_OK);
}

static uint64_t count(maildex_db_t *db, const char *query)
{
    maildex_query_t *q;
    uint64_t n = 0;

    ASSERT_EQ(maildex_query_create(db, query, NULL, &q), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_query_count_messages(q, &n), MAILDEX_STATUS_OK);
    maildex_query_destroy(q);
    return n;
}

struct threads {
    uint64_t ids[8];
    size_t n;
};

static void on_thread(void *data, uint64_t thread)
{
    struct threads *t = data;

    ASSERT_LT(t->n, (size_t) 8);
    t->ids[t->n++] = thread;
}

static maildex_index_stats_t index_dirs(struct store *s, const char *const *dirs, struct threads *t)
{
    const char *const ignore[] = {"skipped", NULL};
    maildex_index_options_t opts = {.ignore = ignore, .directories = dirs};
    maildex_index_stats_t stats;

    if (t) {
        opts.thread_changed = on_thread;
        opts.data = t;
        t->n = 0;
    }
    ASSERT_EQ(maildex_index(s->db, &opts, &stats), MAILDEX_STATUS_OK);
    return stats;
}

TEST(directories_are_those_the_walk_walks)
{
    struct store s;
    char **dirs;
    char joined[256] = "";

    open_store(&s, "subtrees-directories");
    ASSERT_EQ(maildex_db_directories(s.db, &dirs), MAILDEX_STATUS_OK);
    for (size_t i = 0; dirs[i]; i++)
        snprintf(joined + strlen(joined), sizeof joined - strlen(joined), "[%s]", dirs[i]);
    ASSERT_STR_EQ(joined, "[][a][a/cur][a/new][b][b/cur][b/new]");
    maildex_strings_free(dirs);
    ASSERT_EQ(maildex_db_close(s.db), MAILDEX_STATUS_OK);
}

TEST(only_the_given_subtrees_are_walked)
{
    struct store s;
    const char *const a_new[] = {"a/new", NULL}, *const b[] = {"b", NULL};
    maildex_index_stats_t st;

    open_store(&s, "subtrees-only");
    put_message(&s, "a/new/in-a", "in-a@x", NULL);
    put_message(&s, "b/new/in-b", "in-b@x", NULL);
    st = index_dirs(&s, a_new, NULL);
    ASSERT_EQ(st.messages_added, (uint64_t) 1);
    ASSERT_EQ(st.first_run, false);
    ASSERT_EQ(count(s.db, "id:in-a@x"), (uint64_t) 1);
    ASSERT_EQ(count(s.db, "id:in-b@x"), (uint64_t) 0);
    st = index_dirs(&s, b, NULL); /* a subtree: its changed subdirectory is listed */
    ASSERT_EQ(st.messages_added, (uint64_t) 1);
    ASSERT_EQ(count(s.db, "id:in-b@x"), (uint64_t) 1);
    ASSERT_EQ(maildex_db_close(s.db), MAILDEX_STATUS_OK);
}

TEST(a_move_between_two_given_directories_is_a_rename)
{
    struct store s;
    const char *const both[] = {"b/cur", "a/cur", NULL};
    maildex_index_stats_t st;

    open_store(&s, "subtrees-rename");
    move_file(&s, "a/cur/first:2,", "b/cur/first:2,S");
    st = index_dirs(&s, both, NULL);
    ASSERT_EQ(st.renames, (uint64_t) 1);
    ASSERT_EQ(st.messages_removed, (uint64_t) 0);
    ASSERT_EQ(count(s.db, "folder:b and id:first@x"), (uint64_t) 1);
    ASSERT_EQ(maildex_db_close(s.db), MAILDEX_STATUS_OK);
}

TEST(a_subtree_inside_another_is_walked_once)
{
    struct store s;
    const char *const nested[] = {"a/new", "a", "a", NULL};
    maildex_index_stats_t st;

    open_store(&s, "subtrees-nested");
    put_message(&s, "a/new/in-a", "in-a@x", NULL);
    st = index_dirs(&s, nested, NULL);
    ASSERT_EQ(st.warnings, (uint64_t) 0);
    ASSERT_EQ(st.messages_added, (uint64_t) 1);
    ASSERT_EQ(st.directories, (uint64_t) 3); /* a, a/cur, a/new */
    ASSERT_EQ(maildex_db_close(s.db), MAILDEX_STATUS_OK);
}

static uint64_t thread_of(maildex_db_t *db, const char *query)
{
    maildex_query_t *q;
    maildex_threads_t *it;
    maildex_thread_t *t;
    uint64_t id;

    ASSERT_EQ(maildex_query_create(db, query, NULL, &q), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_query_search_threads(q, &it), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_threads_next(it, &t), MAILDEX_STATUS_OK);
    ASSERT(t != NULL);
    id = maildex_thread_id(t);
    maildex_query_destroy(q);
    return id;
}

TEST(the_threads_a_run_changed_are_told)
{
    struct store s;
    const char *const a[] = {"a", NULL};
    struct threads t;
    uint64_t first;

    open_store(&s, "subtrees-threads");
    first = thread_of(s.db, "id:first@x");
    put_message(&s, "a/new/reply", "reply@x", "first@x");
    index_dirs(&s, a, &t);
    ASSERT_EQ(t.n, (size_t) 1);
    ASSERT_EQ(t.ids[0], first);
    move_file(&s, "a/new/reply", "a/cur/reply:2,S"); /* a file moved */
    index_dirs(&s, a, &t);
    ASSERT_EQ(t.n, (size_t) 1);
    ASSERT_EQ(t.ids[0], first);
    index_dirs(&s, a, &t); /* nothing changed */
    ASSERT_EQ(t.n, (size_t) 0);
    ASSERT_EQ(maildex_db_close(s.db), MAILDEX_STATUS_OK);
}

TEST_MAIN(TEST_ENTRY(directories_are_those_the_walk_walks) TEST_ENTRY(only_the_given_subtrees_are_walked)
              TEST_ENTRY(a_move_between_two_given_directories_is_a_rename)
                  TEST_ENTRY(a_subtree_inside_another_is_walked_once)
                      TEST_ENTRY(the_threads_a_run_changed_are_told))
