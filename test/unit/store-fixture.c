/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The generated stores of store-fixture.h, and the work counter. A store is built through the
 * library's writer (maildex__store_add, in batches as `new` commits them), never by writing its
 * tables here, so a change to keys, threads, tags or text reaches the work bounds measured on it. */
#include "store-fixture.h"

#include "util/maildir.h"
#include "message/write.h"
#include "store/vm-steps.h"
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOW 1717200000 /* 2024-06-01, the newest message */
#define BATCH 2000     /* messages per transaction, as `new` commits files */

/* Deterministic generator (xorshift) and a Zipf-ish word rank: rank r has weight about 1/r. */
static uint64_t rng_state;
static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static int zipf(int n)
{
    /* inverse of the continuous 1/x distribution on [1, n+1) */
    double u = (double) (rng() % 1000000) / 1000000.0;
    int r = (int) exp(u * log((double) n + 1));
    return r < 1 ? 1 : (r > n ? n : r);
}

static void word(char *buf, int rank)
{
    static const char *const syl[] = {"ka", "lo", "mi", "re", "tu", "sa", "ne", "po", "di", "gu"};
    buf[0] = '\0';
    strcat(buf, "w");
    for (int r = rank; r > 0; r /= 10)
        strcat(buf, syl[r % 10]);
}

/* ---- the mail ---------------------------------------------------------------------------------- */

/* The directories `new` records for a mail root holding the Maildirs inbox, lists and sent, in the
 * order it creates them (the walk is breadth first, names sorted), with their parents' indexes. */
static const struct {
    const char *path;
    int parent;
} dirs[] = {
    {"", -1},         {"inbox", 0},     {"lists", 0},     {"sent", 0},      {"inbox/cur", 1},
    {"inbox/new", 1}, {"lists/cur", 2}, {"lists/new", 2}, {"sent/cur", 3},  {"sent/new", 3},
};
#define NDIRS ((int) (sizeof dirs / sizeof dirs[0]))
static const int mail_dirs[3] = {4, 8, 6}; /* a message's file is in inbox/cur, sent/cur or lists/cur */

struct dir_row {
    int64_t id, folder;
};

static int64_t folder_row(maildex_db_t *db, const char *path)
{
    char name[64];
    int64_t id;

    maildex__maildir_folder(path, name);
    ASSERT_EQ(maildex__find_or_create(db, MAILDEX__STMT_FOLDER_FIND, MAILDEX__STMT_FOLDER_INSERT, name, &id),
              MAILDEX_STATUS_OK);
    return id;
}

static void directory_rows(maildex_db_t *db, struct dir_row rows[NDIRS])
{
    for (int i = 0; i < NDIRS; i++) {
        sqlite3_stmt *stmt;
        rows[i].folder = folder_row(db, dirs[i].path);
        ASSERT_EQ(maildex__stmt(db, MAILDEX__STMT_DIR_INSERT, &stmt), MAILDEX_STATUS_OK);
        sqlite3_bind_text(stmt, 1, dirs[i].path, -1, SQLITE_STATIC);
        if (dirs[i].parent >= 0)
            sqlite3_bind_int64(stmt, 2, rows[dirs[i].parent].id);
        sqlite3_bind_int64(stmt, 3, rows[i].folder);
        ASSERT_EQ(maildex__step_done(db, stmt, "directory"), MAILDEX_STATUS_OK);
        rows[i].id = sqlite3_last_insert_rowid(db->sql);
    }
}

/* Message i of any store, as the parser would return it, with the tags it arrives with (inbox 30%,
 * unread 20%, flagged 5%, spam 2%) and its directory. Thread: message i is number k = i % 128 / 16
 * (0 the newest) of the 8 messages i % 16 + 128 * (i / 128) + 16 * k, and replies to number k + 1;
 * its References name every older one, oldest first. Draws from rng() in the same order for every
 * store, so the first messages of a bigger store are those of a smaller one. */
static struct maildex__parsed_message *message(void *ctx, int i, const char *tags[5], int *dir)
{
    static const char *const senders[] = {"Alice <alice@a.org>", "Bob <bob@b.org>", "Carol <carol@c.org>",
                                          "Dave <dave@d.org>", "Erin <erin@e.org>", "Frank <frank@f.org>",
                                          "Grace <grace@g.org>", "Heidi <heidi@h.org>", "Ivan <ivan@i.org>",
                                          "Judy <judy@j.org>"};
    static const char *const tag_names[] = {"inbox", "unread", "flagged", "spam"};
    static const int pct[] = {30, 20, 5, 2};
    struct maildex__parsed_message *m = talloc_zero(ctx, struct maildex__parsed_message);
    int k = i % 128 / 16, oldest = i - 16 * k + 112, ntags = 0;
    char w[40], *body = talloc_strdup(m, "");

    m->message_id = talloc_asprintf(m, "m%d@gen", i);
    m->date = NOW - (int64_t) i * 600;
    m->from = talloc_strdup(m, senders[rng() % 10]);
    m->from_name = talloc_strndup(m, m->from, (size_t) (strchr(m->from, '<') - m->from - 1));
    m->references = talloc_zero_array(m, char *, 8);
    for (int r = oldest, n = 0; r > i; r -= 16)
        m->references[n++] = talloc_asprintf(m->references, "m%d@gen", r);
    m->parent_id = k < 7 ? talloc_asprintf(m, "m%d@gen", i + 16) : NULL;
    m->subject = talloc_strdup(m, "subject");
    m->to = m->cc = m->bcc = m->reply_to = m->attachment_names = talloc_strdup(m, "");
    m->mime_types = talloc_strdup(m, "text/plain");
    m->is_mail = true;
    for (int n = 0; n < 20; n++) {
        word(w, zipf(5000));
        body = talloc_asprintf_append(body, "%s ", w);
    }
    m->body = body;
    for (int t = 0; t < 4; t++)
        if ((int) (rng() % 100) < pct[t])
            tags[ntags++] = tag_names[t];
    tags[ntags] = NULL;
    *dir = mail_dirs[rng() % 3];
    return m;
}

/* The store of n messages, built at path through the writer as `new` would index that mail. */
static void build_store(const char *path, int n)
{
    maildex_db_t *db = NULL;
    char *err = NULL;
    struct dir_row rows[NDIRS];
    bool added;

    ASSERT_EQ(maildex_db_open(path, "/mail", MAILDEX_DB_CREATE, &db, &err), MAILDEX_STATUS_OK);
    rng_state = 88172645463325252ull;
    ASSERT_EQ(maildex__begin(db), MAILDEX_STATUS_OK);
    directory_rows(db, rows);
    for (int i = 0; i < n; i++) {
        void *ctx = talloc_new(NULL);
        const char *tags[5];
        char name[40];
        int dir;
        struct maildex__parsed_message *m = message(ctx, i, tags, &dir);
        struct maildex__add_options opts = {.new_tags = tags, .synchronize_flags = false};
        /* size: about what the file would hold */
        struct maildex__file_ref file = {rows[dir].id, rows[dir].folder, name, NULL,
                                         (int64_t) (200 + strlen(m->body)), dirs[dir].path};
        snprintf(name, sizeof name, "%d:2,", i);
        ASSERT_EQ(maildex__store_add(db, m, NULL, &file, &opts, &added), MAILDEX_STATUS_OK);
        ASSERT(added);
        if (i % 10 == 0) {
            const maildex_pair_t k = {"k", i % 100 == 0 ? "hundred" : "ten"};
            ASSERT_EQ(maildex_db_set_properties(db, m->message_id, &k, 1, false), MAILDEX_STATUS_OK);
        }
        talloc_free(ctx);
        if ((i + 1) % BATCH == 0) {
            ASSERT_EQ(maildex__commit(db), MAILDEX_STATUS_OK);
            ASSERT_EQ(maildex__begin(db), MAILDEX_STATUS_OK);
        }
    }
    ASSERT_EQ(maildex__commit(db), MAILDEX_STATUS_OK);
    maildex__checkpoint(db);
    ASSERT_EQ(maildex_db_close(db), MAILDEX_STATUS_OK);
}

/* Stores built so far in this run, by size: fixture_big_store() reopens them instead of building
 * again. */
static struct {
    int n;
    char path[4200];
} built[4];

maildex_db_t *fixture_big_store(int n)
{
    const char *path = NULL;
    maildex_db_t *db = NULL;
    char *err = NULL;
    size_t i;

    for (i = 0; i < sizeof built / sizeof built[0] && built[i].n != 0 && !path; i++)
        if (built[i].n == n)
            path = built[i].path;
    if (path == NULL) {
        char label[32];
        ASSERT(i < sizeof built / sizeof built[0]);
        snprintf(label, sizeof label, "big%d", n);
        snprintf(built[i].path, sizeof built[i].path, "%s/maildex.db", test_scratch_dir(label));
        build_store(built[i].path, n);
        built[i].n = n;
        path = built[i].path;
    }
    if (maildex_db_open(path, "/mail", MAILDEX_DB_READ_ONLY, &db, &err) != MAILDEX_STATUS_OK) {
        printf("# %s: %s\n", path, err ? err : "?");
        free(err);
    }
    ASSERT(db != NULL);
    return db;
}

/* ---- the work counter -------------------------------------------------------------------------- */

static int64_t steps_of_finished;

void fixture_work_start(maildex_db_t *db)
{
    int cur, hi;

    steps_of_finished = 0;
    db->side_steps = db->side_pages = 0;
    maildex__vm_steps_sweep(db->sql);
    sqlite3_trace_v2(db->sql, SQLITE_TRACE_PROFILE, maildex__vm_steps_finished, &steps_of_finished);
    sqlite3_db_status(db->sql, SQLITE_DBSTATUS_CACHE_HIT, &cur, &hi, 1);
    sqlite3_db_status(db->sql, SQLITE_DBSTATUS_CACHE_MISS, &cur, &hi, 1);
}

struct work fixture_work_done(maildex_db_t *db)
{
    struct work w;
    int hit, miss, hi;

    w.steps = steps_of_finished + maildex__vm_steps_sweep(db->sql);
    sqlite3_db_status(db->sql, SQLITE_DBSTATUS_CACHE_HIT, &hit, &hi, 1);
    sqlite3_db_status(db->sql, SQLITE_DBSTATUS_CACHE_MISS, &miss, &hi, 1);
    w.pages = (int64_t) hit + miss;
    /* Parts read on a second connection (lib/query/side-read.c) are the query's work too. */
    w.steps += db->side_steps;
    w.pages += db->side_pages;
    sqlite3_trace_v2(db->sql, 0, NULL, NULL);
    steps_of_finished = 0;
    return w;
}
