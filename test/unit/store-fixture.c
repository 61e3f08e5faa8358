/* The generated stores of store-fixture.h, and the work counter. */
#include "store-fixture.h"

#include "vm-steps.h"
#include "test.h"

#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void exec(maildex_db_t *db, const char *sql)
{
    char *err = NULL;
    if (sqlite3_exec(db->sql, sql, NULL, NULL, &err) != SQLITE_OK) {
        printf("# %s: %s\n", sql, err);
        sqlite3_free(err);
        ASSERT(0);
    }
}

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

/* Stores built so far in this run, by size: big_store() reopens them instead of building again. */
static struct {
    int n;
    char path[4200];
} built[4];

static maildex_db_t *reopen_store(int n)
{
    maildex_db_t *db = NULL;
    char *err = NULL;

    for (size_t i = 0; i < sizeof built / sizeof built[0]; i++) {
        if (built[i].n != n)
            continue;
        if (maildex_db_open(built[i].path, "/mail", MAILDEX_DB_READ_WRITE, &db, &err) != MAILDEX_STATUS_OK) {
            printf("# reopen: %s\n", err ? err : "?");
            free(err);
        }
        ASSERT(db != NULL);
        return db;
    }
    return NULL;
}

static void remember_store(int n, const char *path)
{
    for (size_t i = 0; i < sizeof built / sizeof built[0]; i++) {
        if (built[i].n != 0)
            continue;
        built[i].n = n;
        snprintf(built[i].path, sizeof built[i].path, "%s", path);
        return;
    }
}

/* n messages, one every 10 minutes going back from 2024-06-01 (so a bigger store reaches further back
 * and its newest messages are the same), in threads of 8 interleaved 16 at a time: each block of 128
 * consecutive messages holds 16 threads, a thread's messages 160 minutes apart. */
maildex_db_t *fixture_big_store(int n)
{
    char label[32], body[1200], w[40];
    maildex_db_t *db = reopen_store(n);
    sqlite3_stmt *msg, *txt, *fts, *tag, *file;
    static const char *const senders[] = {"Alice <alice@a.org>", "Bob <bob@b.org>", "Carol <carol@c.org>",
                                          "Dave <dave@d.org>", "Erin <erin@e.org>", "Frank <frank@f.org>",
                                          "Grace <grace@g.org>", "Heidi <heidi@h.org>", "Ivan <ivan@i.org>",
                                          "Judy <judy@j.org>"};

    if (db != NULL)
        return db;
    snprintf(label, sizeof label, "big%d", n);
    {
        char path[4200];
        char *err = NULL;
        snprintf(path, sizeof path, "%s/maildex.db", test_scratch_dir(label));
        ASSERT_EQ(maildex_db_open(path, "/mail", MAILDEX_DB_CREATE, &db, &err), MAILDEX_STATUS_OK);
        remember_store(n, path);
    }
    rng_state = 88172645463325252ull;
    exec(db, "BEGIN;"
             "INSERT INTO folders(id, name) VALUES (1, 'inbox'), (2, 'sent'), (3, 'lists');"
             "INSERT INTO directories(id, path, folder) VALUES (1, 'inbox/cur', 1), (2, 'sent/cur', 2), "
             "(3, 'lists/cur', 3);"
             "INSERT INTO tags(id, name) VALUES (1, 'inbox'), (2, 'unread'), (3, 'flagged'), (4, 'spam');");
    ASSERT_EQ(sqlite3_prepare_v2(db->sql, "INSERT INTO messages(id, message_id, thread, date, subject, author) "
                                          "VALUES (?1, ?2, ?3, ?4, 'subject', ?5)", -1, &msg, NULL), SQLITE_OK);
    ASSERT_EQ(sqlite3_prepare_v2(db->sql, "INSERT INTO fts_text(id, subject, \"from\", body) VALUES (?1, 'subject', ?2, ?3)",
                                 -1, &txt, NULL), SQLITE_OK);
    ASSERT_EQ(sqlite3_prepare_v2(db->sql, "INSERT INTO fts(rowid, subject, \"from\", body) VALUES (?1, 'subject', ?2, ?3)",
                                 -1, &fts, NULL), SQLITE_OK);
    ASSERT_EQ(sqlite3_prepare_v2(db->sql, "INSERT INTO message_tags(tag, message) VALUES (?1, ?2)", -1, &tag, NULL),
              SQLITE_OK);
    ASSERT_EQ(sqlite3_prepare_v2(db->sql, "INSERT INTO files(directory, name, message, folder) VALUES (?1, ?2, ?3, ?1)",
                                 -1, &file, NULL), SQLITE_OK);
    for (int i = 0; i < n; i++) {
        /* one message every ~10 minutes going back from 2024-06-01, whatever n is */
        int64_t date = 1717200000 - (int64_t) i * 600, id = date * ((int64_t) 1 << 20) + (i & 0xfffff);
        char mid[40], name[40];
        const char *from = senders[rng() % 10];
        snprintf(mid, sizeof mid, "m%d@gen", i);
        snprintf(name, sizeof name, "%d:2,", i);
        body[0] = '\0';
        for (int k = 0; k < 20; k++) {
            word(w, zipf(5000));
            strcat(body, w);
            strcat(body, " ");
        }
        sqlite3_bind_int64(msg, 1, id);
        sqlite3_bind_text(msg, 2, mid, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int(msg, 3, 1 + i % 16 + 16 * (i / 128));
        sqlite3_bind_int64(msg, 4, date);
        sqlite3_bind_text(msg, 5, from, -1, SQLITE_STATIC);
        ASSERT_EQ(sqlite3_step(msg), SQLITE_DONE);
        sqlite3_reset(msg);
        for (sqlite3_stmt *s = txt; s; s = s == txt ? fts : NULL) {
            sqlite3_bind_int64(s, 1, id);
            sqlite3_bind_text(s, 2, from, -1, SQLITE_STATIC);
            sqlite3_bind_text(s, 3, body, -1, SQLITE_TRANSIENT);
            ASSERT_EQ(sqlite3_step(s), SQLITE_DONE);
            sqlite3_reset(s);
        }
        /* inbox 30%, unread 20%, flagged 5%, spam 2% */
        static const int pct[] = {30, 20, 5, 2};
        for (int t = 0; t < 4; t++) {
            if ((int) (rng() % 100) >= pct[t])
                continue;
            sqlite3_bind_int(tag, 1, t + 1);
            sqlite3_bind_int64(tag, 2, id);
            ASSERT_EQ(sqlite3_step(tag), SQLITE_DONE);
            sqlite3_reset(tag);
        }
        sqlite3_bind_int(file, 1, (int) (rng() % 3) + 1);
        sqlite3_bind_text(file, 2, name, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(file, 3, id);
        ASSERT_EQ(sqlite3_step(file), SQLITE_DONE);
        sqlite3_reset(file);
    }
    sqlite3_finalize(msg);
    sqlite3_finalize(txt);
    sqlite3_finalize(fts);
    sqlite3_finalize(tag);
    sqlite3_finalize(file);
    exec(db, "INSERT INTO threads(id, messages) SELECT thread, count(*) FROM messages GROUP BY thread;"
             "UPDATE tags SET messages = (SELECT count(*) FROM message_tags WHERE tag = tags.id);"
             "UPDATE meta SET value = (SELECT count(*) FROM messages) WHERE key = 'messages'; COMMIT;");
    return db;
}


static int64_t steps_of_finished;

void fixture_work_start(maildex_db_t *db)
{
    int cur, hi;

    steps_of_finished = 0;
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
    sqlite3_trace_v2(db->sql, 0, NULL, NULL);
    steps_of_finished = 0;
    return w;
}
