/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The database handle: creation, migrations, refusal of newer schemas, the statement cache,
 * transactions, revision and database-stored config. */
#include "store/maildex-private.h"
#include "message/text-queue.h"
#include "test.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char *db_file(const char *label)
{
    static char path[4200];
    snprintf(path, sizeof path, "%s/maildex.db", test_scratch_dir(label));
    return path;
}

static maildex_db_t *open_or_fail(const char *path, maildex_db_mode_t mode)
{
    maildex_db_t *db = NULL;
    char *err = NULL;
    maildex_status_t st = maildex_db_open(path, "/tmp", mode, &db, &err);
    if (st != MAILDEX_STATUS_OK) {
        printf("# open %s: %s\n", path, err ? err : "?");
        free(err);
    }
    ASSERT_EQ(st, MAILDEX_STATUS_OK);
    ASSERT(db != NULL);
    return db;
}

static int64_t scalar(maildex_db_t *db, const char *sql)
{
    sqlite3_stmt *stmt;
    int64_t v = -1;
    if (sqlite3_prepare_v2(db->sql, sql, -1, &stmt, NULL) != SQLITE_OK)
        return -2;
    if (sqlite3_step(stmt) == SQLITE_ROW)
        v = sqlite3_column_int64(stmt, 0);
    sqlite3_finalize(stmt);
    return v;
}

static void assert_says_corrupt(const char *err, const char *path)
{
    char *expected = g_strdup_printf("database '%s' is corrupt (", path);
    bool said = err && strncmp(err, expected, strlen(expected)) == 0 &&
                strstr(err, "move it aside and run 'maildex new'") != NULL;
    if (!said)
        printf("# got: %s\n", err ? err : "(null)");
    g_free(expected);
    ASSERT(said);
}

TEST(create_applies_every_migration)
{
    const char *path = db_file("create");
    maildex_db_t *db = open_or_fail(path, MAILDEX_DB_CREATE);

    ASSERT_EQ(maildex_db_schema_version(db), maildex_schema_version_supported());
    ASSERT_EQ(maildex_schema_version_supported(), maildex__migrations[maildex__migration_count - 1].version);
    ASSERT_EQ(scalar(db, "SELECT count(*) FROM sqlite_master WHERE name IN ('messages','files',"
                         "'directories','threads','tags','message_tags','properties','fts',"
                         "'fts_text','texts','meta','ghosts','folders','config')"),
              14);
    ASSERT_EQ(scalar(db, "SELECT value FROM meta WHERE key='revision'"), 0);
    ASSERT_EQ(maildex_db_close(db), MAILDEX_STATUS_OK);
}

TEST(created_file_is_private_and_wal)
{
    const char *path = db_file("mode");
    struct stat sb;
    mode_t old = umask(0);
    maildex_db_t *db = open_or_fail(path, MAILDEX_DB_CREATE);
    umask(old);

    ASSERT_EQ(stat(path, &sb), 0);
    ASSERT_EQ(sb.st_mode & 0777, 0600);
    ASSERT_EQ(scalar(db, "SELECT count(*) FROM pragma_journal_mode WHERE journal_mode='wal'"), 1);
    maildex_db_close(db);
}

TEST(open_missing_without_create_fails_cleanly)
{
    maildex_db_t *db = (maildex_db_t *) 1;
    char *err = NULL;
    char path[4300];
    snprintf(path, sizeof path, "%s/nothing-here.db", test_scratch_dir("missing"));

    ASSERT_EQ(maildex_db_open(path, "/tmp", MAILDEX_DB_READ_ONLY, &db, &err),
              MAILDEX_STATUS_FILE_NOT_FOUND);
    ASSERT(db == NULL);
    ASSERT(err != NULL && strstr(err, path) != NULL);
    free(err);
    ASSERT(access(path, F_OK) != 0); /* a read-only open never creates the file */
}

TEST(reopen_keeps_uuid_and_data)
{
    const char *path = db_file("reopen");
    maildex_db_t *db = open_or_fail(path, MAILDEX_DB_CREATE);
    const char *uuid;
    char saved[64];
    uint64_t rev = 99;

    ASSERT_EQ(maildex_db_revision(db, &uuid, &rev), MAILDEX_STATUS_OK);
    ASSERT_EQ(strlen(uuid), 36);
    ASSERT_EQ(rev, 0);
    snprintf(saved, sizeof saved, "%s", uuid);
    ASSERT_EQ(maildex_db_config_set(db, "query.lunch", "subject:lunch"), MAILDEX_STATUS_OK);
    maildex_db_close(db);

    db = open_or_fail(path, MAILDEX_DB_READ_ONLY);
    ASSERT_EQ(maildex_db_revision(db, &uuid, &rev), MAILDEX_STATUS_OK);
    ASSERT_STR_EQ(uuid, saved);
    {
        const char *v;
        ASSERT_EQ(maildex_db_config_get(db, "query.lunch", &v), MAILDEX_STATUS_OK);
        ASSERT_STR_EQ(v, "subject:lunch");
        ASSERT_EQ(maildex_db_config_get(db, "query.none", &v), MAILDEX_STATUS_OK);
        ASSERT(v == NULL);
    }
    maildex_db_close(db);
}

TEST(newer_schema_is_refused_untouched)
{
    const char *path = db_file("newer");
    maildex_db_t *db = open_or_fail(path, MAILDEX_DB_CREATE);
    char *err = NULL;
    int newer = maildex_schema_version_supported() + 1;
    char pragma[64];

    snprintf(pragma, sizeof pragma, "PRAGMA user_version=%d", newer);
    ASSERT_EQ(sqlite3_exec(db->sql, pragma, NULL, NULL, NULL), SQLITE_OK);
    maildex_db_close(db);

    db = (maildex_db_t *) 1;
    ASSERT_EQ(maildex_db_open(path, "/tmp", MAILDEX_DB_READ_WRITE, &db, &err),
              MAILDEX_STATUS_DATABASE_TOO_NEW);
    ASSERT(db == NULL);
    ASSERT(err && strstr(err, "newer maildex") && strstr(err, path));
    free(err);

    /* Still at the newer version: nothing was downgraded or rewritten. */
    {
        sqlite3 *raw;
        sqlite3_stmt *stmt;
        ASSERT_EQ(sqlite3_open(path, &raw), SQLITE_OK);
        ASSERT_EQ(sqlite3_prepare_v2(raw, "PRAGMA user_version", -1, &stmt, NULL), SQLITE_OK);
        ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
        ASSERT_EQ(sqlite3_column_int(stmt, 0), newer);
        sqlite3_finalize(stmt);
        sqlite3_close(raw);
    }
}

TEST(older_schema_is_migrated_on_write_open_only)
{
    const char *path = db_file("older");
    sqlite3 *raw;
    maildex_db_t *db = NULL;
    char *err = NULL;

    /* An empty SQLite file is schema version 0: read-only refuses it, read-write upgrades it. */
    ASSERT_EQ(sqlite3_open(path, &raw), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(raw, "CREATE TABLE unrelated(x)", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(raw);
    ASSERT_EQ(maildex_db_open(path, "/tmp", MAILDEX_DB_READ_ONLY, &db, &err),
              MAILDEX_STATUS_FILE_NOT_FOUND);
    ASSERT(err && strstr(err, "not a maildex database"));
    free(err);
    db = open_or_fail(path, MAILDEX_DB_READ_WRITE);
    ASSERT_EQ(maildex_db_schema_version(db), maildex_schema_version_supported());
    maildex_db_close(db);
}

/* Migration 0007 packs the bodies of a database made before it: the text read back through fts_text is
 * the text stored, the index still finds it, and deleting a message through the view leaves the
 * full-text index consistent. */
/* Undoes sql/0009 (its triggers, then its two columns): the schema as version 8 left it, for the
 * tests that bring a database back to an older version and upgrade it again. */
static void undo_member_columns(maildex_db_t *db)
{
    sqlite3_stmt *stmt;
    GString *sql = g_string_new("");

    ASSERT_EQ(sqlite3_prepare_v2(db->sql, "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE "
                                          "'%member%'", -1, &stmt, NULL), SQLITE_OK);
    while (sqlite3_step(stmt) == SQLITE_ROW)
        g_string_append_printf(sql, "DROP TRIGGER %s;", (const char *) sqlite3_column_text(stmt, 0));
    sqlite3_finalize(stmt);
    g_string_append(sql, "ALTER TABLE messages DROP COLUMN tag_ids; ALTER TABLE messages DROP COLUMN nfiles;");
    ASSERT_EQ(sqlite3_exec(db->sql, sql->str, NULL, NULL, NULL), SQLITE_OK);
    g_string_free(sql, TRUE);
}

/* A new store (label) taken back by older_sql (which ends with its PRAGMA user_version) to an older
 * schema after undo_member_columns, then reopened for writing: upgraded to the newest version. */
static maildex_db_t *upgraded_from(const char *label, const char *older_sql)
{
    const char *path = db_file(label);
    maildex_db_t *db = open_or_fail(path, MAILDEX_DB_CREATE);

    undo_member_columns(db);
    ASSERT_EQ(sqlite3_exec(db->sql, older_sql, NULL, NULL, NULL), SQLITE_OK);
    maildex_db_close(db);
    db = open_or_fail(path, MAILDEX_DB_READ_WRITE);
    ASSERT_EQ(maildex_db_schema_version(db), maildex_schema_version_supported());
    return db;
}

TEST(older_text_is_packed_on_upgrade_and_still_deletes_exactly)
{
    maildex_db_t *db;
    GString *body = g_string_new("");
    char *sql;

    for (int i = 0; i < 100; i++)
        g_string_append_printf(body, "word%d zebra ", i % 7);
    /* The schema as sql/0006 left it: fts_text a table of plain text (and no later table). */
    sql = sqlite3_mprintf("DROP TABLE indexed_from; DROP VIEW fts_text; ALTER TABLE texts RENAME TO fts_text;"
                          "INSERT INTO fts_text VALUES (1, 's', 'f', 't', %Q, '', '', NULL),"
                          " (2, 's', 'f', 't', 'a tiny giraffe', '', '', NULL);"
                          "INSERT INTO fts(rowid, subject, \"from\", \"to\", body, attachment, mimetype,"
                          " fields) SELECT * FROM fts_text; PRAGMA user_version = 6;", body->str);
    db = upgraded_from("packed", sql);
    sqlite3_free(sql);
    ASSERT_EQ(scalar(db, "SELECT count(*) FROM texts WHERE id = 1 AND typeof(body) = 'blob' AND "
                         "length(body) < 200"), 1);
    ASSERT_EQ(scalar(db, "SELECT count(*) FROM texts WHERE id = 2 AND body = 'a tiny giraffe'"), 1);
    sql = sqlite3_mprintf("SELECT count(*) FROM fts_text WHERE id = 1 AND body = %Q", body->str);
    ASSERT_EQ(scalar(db, sql), 1);
    sqlite3_free(sql);
    ASSERT_EQ(scalar(db, "SELECT count(*) FROM fts WHERE fts MATCH 'zebra'"), 1);
    ASSERT_EQ(maildex__text_delete(db, 1), MAILDEX_STATUS_OK);
    ASSERT_EQ(scalar(db, "SELECT count(*) FROM fts WHERE fts MATCH 'zebra OR word3'"), 0);
    ASSERT_EQ(scalar(db, "SELECT count(*) FROM fts WHERE fts MATCH 'giraffe'"), 1);
    ASSERT_EQ(sqlite3_exec(db->sql, "INSERT INTO fts(fts, rank) VALUES ('integrity-check', 1)", NULL,
                           NULL, NULL), SQLITE_OK);
    g_string_free(body, TRUE);
    maildex_db_close(db);
}

/* Migration 0008 keeps the From a message with merged copies was indexed with: the first line of its
 * from column, for a message with several files only. */
TEST(merged_from_is_kept_on_upgrade)
{
    static const char version_7[] = "DROP TABLE indexed_from;"
                                    "INSERT INTO directories(id, path, folder) VALUES (1, '', 1);"
                                    "INSERT INTO texts(id, subject, \"from\", \"to\", body, attachment, mimetype)"
                                    " VALUES (1, 's', 'Ann <a@x>' || char(10) || 'Bob <b@x>', '', '', '', ''),"
                                    " (2, 's', 'Cy' || char(10) || 'Di', '', '', '', ''),"
                                    " (3, 's', 'Ed <e@x>', '', '', '', '');"
                                    "INSERT INTO files(directory, name, message, folder) VALUES (1, 'a', 1, 1),"
                                    " (1, 'b', 1, 1), (1, 'c', 2, 1), (1, 'd', 3, 1), (1, 'e', 3, 1);"
                                    "PRAGMA user_version = 7;";
    maildex_db_t *db = upgraded_from("indexed-from", version_7);

    ASSERT_EQ(scalar(db, "SELECT count(*) FROM indexed_from"), 1);
    ASSERT_EQ(scalar(db, "SELECT count(*) FROM indexed_from WHERE id = 1 AND value = 'Ann <a@x>'"), 1);
    maildex_db_close(db);
}

/* Messages whose stored tag ids or file count (migration 0009, read by thread summaries) disagree with
 * message_tags and files. */
static int64_t member_columns_wrong(maildex_db_t *db)
{
    return scalar(db, "SELECT count(*) FROM messages m WHERE m.tag_ids IS NOT (SELECT group_concat(tag) FROM "
                      "message_tags WHERE message = m.id) OR m.nfiles != (SELECT count(*) FROM files WHERE "
                      "message = m.id)");
}

/* The triggers of 0009 keep a message's tag ids and file count whatever order a writer puts its rows
 * in: tags and files before their message's row, a new key before or after its tags and files move,
 * rows removed and moved. */
TEST(member_columns_follow_tags_and_files_in_any_order)
{
    maildex_db_t *db = open_or_fail(db_file("member-columns"), MAILDEX_DB_CREATE);
    const char *const steps[] = {
        "INSERT INTO directories(id, path, folder) VALUES (1, '', 1)",
        /* a message row, then its files and tags */
        "INSERT INTO messages(id, message_id, thread, date) VALUES (10, 'a', 1, 0)",
        "INSERT INTO files(directory, name, message, folder) VALUES (1, 'a1', 10, 1), (1, 'a2', 10, 1)",
        "INSERT INTO message_tags(tag, message) VALUES (3, 10), (1, 10), (2, 10)",
        /* files and tags first, the row after */
        "INSERT INTO files(directory, name, message, folder) VALUES (1, 'b1', 20, 1)",
        "INSERT INTO message_tags(tag, message) VALUES (2, 20)",
        "INSERT INTO messages(id, message_id, thread, date) VALUES (20, 'b', 1, 0)",
        /* a new key: the row first, then its files and tags (as reindex moves them) */
        "UPDATE messages SET id = 11 WHERE id = 10",
        "UPDATE files SET message = 11 WHERE message = 10",
        "UPDATE message_tags SET message = 11 WHERE message = 10",
        /* and the other way round */
        "UPDATE files SET message = 21 WHERE message = 20",
        "UPDATE message_tags SET message = 21 WHERE message = 20",
        "UPDATE messages SET id = 21 WHERE id = 20",
        /* removals, a file moved between messages, the last tag gone */
        "DELETE FROM message_tags WHERE tag = 1 AND message = 11",
        "DELETE FROM files WHERE name = 'a2'",
        "UPDATE files SET message = 21 WHERE name = 'a1'",
        "DELETE FROM message_tags WHERE message = 21",
        NULL,
    };

    for (int i = 0; steps[i]; i++) {
        ASSERT_EQ(sqlite3_exec(db->sql, steps[i], NULL, NULL, NULL), SQLITE_OK);
        if (member_columns_wrong(db) != 0)
            printf("# after step %d: %s\n", i, steps[i]);
        ASSERT_EQ(member_columns_wrong(db), 0);
    }
    ASSERT_EQ(scalar(db, "SELECT nfiles FROM messages WHERE id = 21"), 2);
    ASSERT_EQ(scalar(db, "SELECT nfiles FROM messages WHERE id = 11"), 0);
    ASSERT_EQ(scalar(db, "SELECT tag_ids = '2,3' FROM messages WHERE id = 11"), 1);
    ASSERT_EQ(scalar(db, "SELECT tag_ids IS NULL FROM messages WHERE id = 21"), 1);
    maildex_db_close(db);
}

/* Migration 0009 fills the columns of the messages a database already holds. */
TEST(member_columns_are_filled_on_upgrade)
{
    static const char version_8[] = "INSERT INTO directories(id, path, folder) VALUES (1, '', 1);"
                                    "INSERT INTO messages(id, message_id, thread, date) VALUES (1, 'a', 1, 0),"
                                    " (2, 'b', 1, 0), (3, 'c', 2, 0);"
                                    "INSERT INTO files(directory, name, message, folder) VALUES (1, 'a', 1, 1),"
                                    " (1, 'b', 1, 1), (1, 'c', 2, 1);"
                                    "INSERT INTO message_tags(tag, message) VALUES (5, 1), (4, 1), (4, 2);"
                                    "PRAGMA user_version = 8;";
    maildex_db_t *db = upgraded_from("member-columns-upgrade", version_8);

    ASSERT_EQ(member_columns_wrong(db), 0);
    ASSERT_EQ(scalar(db, "SELECT nfiles FROM messages WHERE id = 1"), 2);
    ASSERT_EQ(scalar(db, "SELECT tag_ids = '4,5' FROM messages WHERE id = 1"), 1);
    ASSERT_EQ(scalar(db, "SELECT tag_ids IS NULL AND nfiles = 0 FROM messages WHERE id = 3"), 1);
    maildex_db_close(db);
}

TEST(garbage_file_is_reported_not_crashed)
{
    const char *path = db_file("garbage");
    FILE *f = fopen(path, "w");
    maildex_db_t *db = NULL;
    char *err = NULL;
    maildex_status_t st;

    ASSERT(f != NULL);
    for (int i = 0; i < 4096; i++)
        fputc((i * 7919) & 0xff, f);
    fclose(f);
    for (int mode = MAILDEX_DB_READ_ONLY; mode <= MAILDEX_DB_CREATE; mode++) {
        st = maildex_db_open(path, "/tmp", (maildex_db_mode_t) mode, &db, &err);
        ASSERT_EQ(st, MAILDEX_STATUS_DATABASE_CORRUPT);
        ASSERT(db == NULL);
        ASSERT(err != NULL);
        assert_says_corrupt(err, path);
        free(err);
    }
}

/* The newest page 1 in the WAL (a write not yet checkpointed) makes SQLite take the page count from
 * there, so it does not notice that the file lost its tail: the open must. */
TEST(truncated_file_is_corrupt_even_with_page_one_in_the_wal)
{
    const char *path = db_file("truncated");
    maildex_db_t *db = open_or_fail(path, MAILDEX_DB_CREATE);
    struct stat sb;
    sqlite3 *sql;
    char *err = NULL;

    maildex_db_close(db);
    ASSERT_EQ(sqlite3_open(path, &sql), SQLITE_OK);
    ASSERT_EQ(sqlite3_db_config(sql, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL), SQLITE_OK);
    /* Data in the file, then an empty WAL (as `new` leaves it) that gets only the second insert. */
    ASSERT_EQ(sqlite3_exec(sql, "INSERT INTO meta VALUES ('old', randomblob(400000)); "
                                "PRAGMA wal_checkpoint(TRUNCATE); "
                                "INSERT INTO meta VALUES ('new', randomblob(200000))",
                           NULL, NULL, NULL),
              SQLITE_OK);
    sqlite3_close(sql);
    /* The second half goes: the schema and the stored counts at the start stay readable. */
    ASSERT(stat(path, &sb) == 0);
    ASSERT_EQ(truncate(path, sb.st_size / 2 / 4096 * 4096), 0);
    for (int mode = MAILDEX_DB_READ_ONLY; mode <= MAILDEX_DB_CREATE; mode++) {
        db = NULL;
        ASSERT_EQ(maildex_db_open(path, "/tmp", (maildex_db_mode_t) mode, &db, &err),
                  MAILDEX_STATUS_DATABASE_CORRUPT);
        ASSERT(db == NULL);
        assert_says_corrupt(err, path);
        ASSERT(strstr(err, "truncated") != NULL);
        free(err);
    }
}

/* A database that grows in the WAL while a reader opens it is not mistaken for a truncated one: the
 * file is short of the page count then, and the WAL holds the rest. */
TEST(growing_in_the_wal_is_not_truncation)
{
    const char *path = db_file("growing");
    maildex_db_t *db = open_or_fail(path, MAILDEX_DB_CREATE), *reader;
    struct stat sb;

    ASSERT_EQ(sqlite3_exec(db->sql, "PRAGMA wal_autocheckpoint=0; INSERT INTO meta VALUES "
                                    "('filler', randomblob(200000))",
                           NULL, NULL, NULL),
              SQLITE_OK);
    ASSERT(stat(path, &sb) == 0);
    ASSERT_LT(sb.st_size, scalar(db, "PRAGMA page_count") * scalar(db, "PRAGMA page_size"));
    reader = open_or_fail(path, MAILDEX_DB_READ_ONLY);
    maildex_db_close(reader);
    maildex_db_close(db);
}

/* No SQLite text reaches a user bare: a refused change says what maildex was doing, names the file,
 * and what to do. */
TEST(sql_errors_name_the_context_and_the_file)
{
    const char *path = db_file("sqlerr");
    maildex_db_t *db = open_or_fail(path, MAILDEX_DB_CREATE);
    const char *msg;
    int rc;

    rc = sqlite3_exec(db->sql, "CREATE TEMP TABLE u(a UNIQUE); INSERT INTO u VALUES (1), (1)", NULL,
                      NULL, NULL);
    ASSERT_EQ(rc & 0xff, SQLITE_CONSTRAINT);
    ASSERT_EQ(maildex__sql_error(db, rc, "cannot record a file"), MAILDEX_STATUS_DATABASE_ERROR);
    msg = maildex_db_errmsg(db);
    ASSERT(strncmp(msg, "cannot record a file: ", 22) == 0);
    ASSERT(strstr(msg, path) != NULL);
    ASSERT(strstr(msg, "run the command again") != NULL);
    rc = sqlite3_exec(db->sql, "SELECT * FROM no_such_table", NULL, NULL, NULL);
    ASSERT_EQ(maildex__sql_error(db, rc, "cannot read folders"), MAILDEX_STATUS_DATABASE_ERROR);
    msg = maildex_db_errmsg(db);
    ASSERT(strncmp(msg, "cannot read folders: no such table: no_such_table", 48) == 0);
    ASSERT(strstr(msg, path) != NULL);
    maildex_db_close(db);
}

TEST(statement_cache_prepares_once_and_resets)
{
    const char *path = db_file("cache");
    maildex_db_t *db = open_or_fail(path, MAILDEX_DB_CREATE);
    sqlite3_stmt *a, *b;

    ASSERT(db->stmts[MAILDEX__STMT_META_GET] == NULL); /* lazy */
    ASSERT_EQ(maildex__stmt(db, MAILDEX__STMT_META_GET, &a), MAILDEX_STATUS_OK);
    sqlite3_bind_text(a, 1, "revision", -1, SQLITE_STATIC);
    ASSERT_EQ(sqlite3_step(a), SQLITE_ROW); /* left mid-iteration on purpose */
    ASSERT_EQ(maildex__stmt(db, MAILDEX__STMT_META_GET, &b), MAILDEX_STATUS_OK);
    ASSERT(a == b);
    /* Reset and bindings cleared: an unbound key matches nothing. */
    ASSERT_EQ(sqlite3_step(b), SQLITE_DONE);
    ASSERT_STR_EQ(sqlite3_sql(b), maildex__stmt_sql(MAILDEX__STMT_META_GET));
    /* Closing with a cached, un-reset statement must still close SQLite cleanly (ASan would see a
     * leaked connection otherwise). */
    ASSERT_EQ(sqlite3_step(b), SQLITE_DONE);
    maildex_db_close(db);
}

TEST(every_cached_statement_prepares)
{
    const char *path = db_file("allstmts");
    maildex_db_t *db = open_or_fail(path, MAILDEX_DB_CREATE);
    sqlite3_stmt *s;

    /* The word list's statements need its table, which full-text estimates make first. */
    ASSERT_EQ(maildex__vocab_ensure(db), MAILDEX_STATUS_OK);
    for (int i = 0; i < MAILDEX__STMT_COUNT; i++) {
        if (maildex__stmt(db, (maildex__stmt_id_t) i, &s) != MAILDEX_STATUS_OK)
            printf("# statement %d: %s\n", i, maildex_db_errmsg(db));
        ASSERT(s != NULL);
    }
    maildex_db_close(db);
}

TEST(transactions_nest_and_revision_bumps)
{
    const char *path = db_file("txn");
    maildex_db_t *db = open_or_fail(path, MAILDEX_DB_CREATE);
    int64_t rev = 0;
    uint64_t stored = 0;

    ASSERT_EQ(maildex__begin(db), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex__begin(db), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex__bump_revision(db, &rev), MAILDEX_STATUS_OK);
    ASSERT_EQ(rev, 1);
    ASSERT_EQ(maildex__commit(db), MAILDEX_STATUS_OK);
    ASSERT(!sqlite3_get_autocommit(db->sql)); /* inner commit only counts */
    ASSERT_EQ(maildex__commit(db), MAILDEX_STATUS_OK);
    ASSERT(sqlite3_get_autocommit(db->sql));

    ASSERT_EQ(maildex__begin(db), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex__bump_revision(db, &rev), MAILDEX_STATUS_OK);
    maildex__rollback(db);
    ASSERT_EQ(maildex_db_revision(db, NULL, &stored), MAILDEX_STATUS_OK);
    ASSERT_EQ(stored, 1);
    maildex_db_close(db);
}

/* A participant that writes down the hooks called: "name:hook", space-separated, in one log. */
struct probe {
    const char *name;
    GString *log;
    bool fail;
};

static void probe_log(struct probe *p, const char *hook)
{
    g_string_append_printf(p->log, "%s%s:%s", p->log->len ? " " : "", p->name, hook);
}

static maildex_status_t probe_before(maildex_db_t *db, void *state)
{
    struct probe *p = state;
    probe_log(p, "before");
    return p->fail ? maildex__error(db, MAILDEX_STATUS_DATABASE_ERROR, "refused") : MAILDEX_STATUS_OK;
}

static void probe_after(maildex_db_t *db, void *state)
{
    (void) db;
    probe_log(state, "after");
}

static void probe_rollback(maildex_db_t *db, void *state)
{
    (void) db;
    probe_log(state, "rollback");
}

static void probe_close(void *state)
{
    probe_log(state, "close");
}

static const struct maildex__participant probe_early = {"early", 10, probe_before, probe_after,
                                                         probe_rollback, probe_close};
static const struct maildex__participant probe_late = {"late", 40, probe_before, probe_after,
                                                        probe_rollback, probe_close};

static struct probe *probe_join(maildex_db_t *db, const struct maildex__participant *p, GString *log)
{
    struct probe *probe = maildex__participant_join(db, p, sizeof *probe);
    ASSERT(probe != NULL);
    probe->name = p->name;
    probe->log = log;
    return probe;
}

TEST(participants_run_by_rank_at_the_outermost_commit_and_forget_on_rollback)
{
    maildex_db_t *db = open_or_fail(db_file("participants"), MAILDEX_DB_CREATE);
    GString *log = g_string_new(NULL);
    struct probe *late = probe_join(db, &probe_late, log); /* joins first, runs last */
    struct probe *early = probe_join(db, &probe_early, log);

    ASSERT(maildex__participant_join(db, &probe_late, sizeof *late) == late);
    ASSERT(maildex__participant_state(db, &probe_early) == early);

    ASSERT_EQ(maildex__begin(db), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex__begin(db), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex__commit(db), MAILDEX_STATUS_OK);
    ASSERT_STR_EQ(log->str, ""); /* an inner commit only counts */
    ASSERT_EQ(maildex__commit(db), MAILDEX_STATUS_OK);
    ASSERT_STR_EQ(log->str, "early:before late:before early:after late:after");

    /* a failing before_commit: the later ones do not run, the transaction is rolled back */
    g_string_truncate(log, 0);
    early->fail = true;
    ASSERT_EQ(maildex__begin(db), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex__commit(db), MAILDEX_STATUS_DATABASE_ERROR);
    ASSERT(sqlite3_get_autocommit(db->sql));
    ASSERT_STR_EQ(log->str, "early:before early:rollback late:rollback");

    g_string_truncate(log, 0);
    maildex__participant_leave(db, &probe_early);
    ASSERT(maildex__participant_state(db, &probe_early) == NULL);
    ASSERT_EQ(maildex__begin(db), MAILDEX_STATUS_OK);
    maildex__rollback(db);
    ASSERT_STR_EQ(log->str, "early:close late:rollback");

    g_string_truncate(log, 0);
    maildex_db_close(db);
    ASSERT_STR_EQ(log->str, "late:close");
    g_string_free(log, TRUE);
}

TEST(read_only_handle_refuses_writes)
{
    const char *path = db_file("ro");
    maildex_db_t *db = open_or_fail(path, MAILDEX_DB_CREATE);
    maildex_db_close(db);
    db = open_or_fail(path, MAILDEX_DB_READ_ONLY);
    ASSERT_EQ(maildex_db_config_set(db, "a.b", "c"), MAILDEX_STATUS_READ_ONLY);
    ASSERT(strstr(maildex_db_errmsg(db), "read-only") != NULL);
    maildex_db_close(db);
}

TEST(second_writer_waits_then_reports_busy)
{
    const char *path = db_file("busy");
    maildex_db_t *a = open_or_fail(path, MAILDEX_DB_CREATE);
    maildex_db_t *b = open_or_fail(path, MAILDEX_DB_READ_WRITE);
    maildex_db_t *r = open_or_fail(path, MAILDEX_DB_READ_ONLY);
    uint64_t rev;

    ASSERT_EQ(maildex__begin(a), MAILDEX_STATUS_OK);
    sqlite3_busy_timeout(b->sql, 50); /* do not wait the real 10 s in a unit test */
    ASSERT_EQ(maildex__begin(b), MAILDEX_STATUS_DATABASE_BUSY);
    ASSERT(strstr(maildex_db_errmsg(b), "locked by another writer") != NULL);
    /* A reader is never blocked by the writer (WAL). */
    ASSERT_EQ(maildex_db_revision(r, NULL, &rev), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex__commit(a), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex__begin(b), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex__commit(b), MAILDEX_STATUS_OK);
    maildex_db_close(r);
    maildex_db_close(b);
    maildex_db_close(a);
}

static void remember_waiting(void *data, const char *what)
{
    g_strlcpy(data, what, 256);
}

static gpointer cancel_soon(gpointer db)
{
    g_usleep(200000);
    maildex_db_cancel(db, MAILDEX_CANCEL_BATCH);
    return NULL;
}

/* maildex_db_cancel from another thread: a write waiting for the write lock stops waiting at once
 * (it would wait a minute), reads run on; cancelled outright, no statement of the handle starts,
 * and a weaker cancel does not undo it. */
TEST(cancel_from_another_thread_ends_a_wait_and_all_stops_every_statement)
{
    const char *path = db_file("cancel");
    maildex_db_t *a = open_or_fail(path, MAILDEX_DB_CREATE);
    maildex_db_t *b = open_or_fail(path, MAILDEX_DB_READ_WRITE);
    const char *value;
    gint64 started = g_get_monotonic_time();
    GThread *canceller;

    ASSERT_EQ(maildex__begin(a), MAILDEX_STATUS_OK);
    canceller = g_thread_new("cancel", cancel_soon, b);
    ASSERT_EQ(maildex__begin(b), MAILDEX_STATUS_INTERRUPTED);
    g_thread_join(canceller);
    ASSERT(g_get_monotonic_time() - started < 10 * G_USEC_PER_SEC);
    ASSERT(strstr(maildex_db_errmsg(b), "interrupted") != NULL);
    ASSERT_EQ(maildex_db_config_get(b, "a.b", &value), MAILDEX_STATUS_OK);

    maildex_db_cancel(b, MAILDEX_CANCEL_ALL);
    maildex_db_cancel(b, MAILDEX_CANCEL_BATCH);
    ASSERT_EQ(maildex_db_config_get(b, "a.b", &value), MAILDEX_STATUS_INTERRUPTED);
    ASSERT_EQ(maildex__commit(a), MAILDEX_STATUS_OK);
    maildex_db_close(b);
    maildex_db_close(a);
}

/* maildex's own wait (not sqlite3_busy_timeout): bounded by the handle's busy_timeout_ms, telling
 * the host which maildex writer it waits for, and giving up with that said. */
TEST(write_waits_for_the_other_writer_names_it_and_gives_up_at_its_bound)
{
    const char *path = db_file("write-wait");
    maildex_db_t *a = open_or_fail(path, MAILDEX_DB_CREATE);
    maildex_db_t *b = open_or_fail(path, MAILDEX_DB_READ_WRITE);
    char told[256] = "", *expected = g_strdup_printf("waiting for another maildex writer (pid %ld)",
                                                     (long) getpid());
    gint64 started;

    ASSERT_EQ(a->busy_timeout_ms, MAILDEX__WRITE_WAIT_MS);
    ASSERT_EQ(maildex__begin(a), MAILDEX_STATUS_OK);
    b->busy_timeout_ms = 1000;
    maildex_db_set_waiting(b, remember_waiting, told);
    started = g_get_monotonic_time();
    ASSERT_EQ(maildex__begin(b), MAILDEX_STATUS_DATABASE_BUSY);
    ASSERT(g_get_monotonic_time() - started >= 1000000);
    ASSERT_STR_EQ(told, expected);
    ASSERT(strstr(maildex_db_errmsg(b), "locked by another writer (waited 1 s)") != NULL);
    ASSERT_EQ(maildex__commit(a), MAILDEX_STATUS_OK);
    /* Nobody in a transaction: no pid to name. */
    ASSERT_STR_EQ(maildex__turn_waiting_message(b), "waiting for another process writing to the database");
    ASSERT_EQ(maildex__begin(b), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex__commit(b), MAILDEX_STATUS_OK);
    g_free(expected);
    maildex_db_close(b);
    maildex_db_close(a);
}

TEST(indexer_waits_for_the_other_indexer_names_it_and_gives_up_at_its_bound)
{
    const char *path = db_file("indexer-wait");
    maildex_db_t *a = open_or_fail(path, MAILDEX_DB_CREATE);
    maildex_db_t *b = open_or_fail(path, MAILDEX_DB_READ_WRITE);
    struct maildex__writer_lock *held = NULL, *second = NULL;
    char told[256] = "", *expected = g_strdup_printf("waiting for another maildex writer (pid %ld) "
                                                     "to finish indexing", (long) getpid());

    ASSERT_EQ(a->indexer_wait_ms, MAILDEX__INDEXER_WAIT_MS);
    ASSERT_EQ(maildex__writer_lock(a, "indexing", &held), MAILDEX_STATUS_OK);
    b->indexer_wait_ms = 1000;
    maildex_db_set_waiting(b, remember_waiting, told);
    ASSERT_EQ(maildex__writer_lock(b, "indexing", &second), MAILDEX_STATUS_DATABASE_BUSY);
    ASSERT(second == NULL);
    ASSERT_STR_EQ(told, expected);
    ASSERT(strstr(maildex_db_errmsg(b), "has been indexing for more than 1 s") != NULL);
    maildex__writer_unlock(held);
    ASSERT_EQ(maildex__writer_lock(b, "indexing", &second), MAILDEX_STATUS_OK);
    maildex__writer_unlock(second);
    g_free(expected);
    maildex_db_close(b);
    maildex_db_close(a);
}

/* Between two batches a long writer lets a waiting writer go first: it waits while one has said it
 * waits (a second at most: here the other never comes), and not at all when nobody waits. */
TEST(commit_and_begin_lets_a_waiting_writer_go_first)
{
    const char *path = db_file("yield");
    maildex_db_t *a = open_or_fail(path, MAILDEX_DB_CREATE);
    maildex_db_t *b = open_or_fail(path, MAILDEX_DB_READ_WRITE);
    gint64 started;

    ASSERT_EQ(maildex__begin(a), MAILDEX_STATUS_OK);
    started = g_get_monotonic_time();
    ASSERT_EQ(maildex__commit_and_begin(a), MAILDEX_STATUS_OK);
    ASSERT_LT(g_get_monotonic_time() - started, 500000);
    maildex__turn_waiting(b);
    ASSERT(b->turn_announced);
    started = g_get_monotonic_time();
    ASSERT_EQ(maildex__commit_and_begin(a), MAILDEX_STATUS_OK);
    ASSERT(g_get_monotonic_time() - started >= 900000);
    maildex__turn_begun(b, false);
    ASSERT(!b->turn_announced);
    started = g_get_monotonic_time();
    ASSERT_EQ(maildex__commit_and_begin(a), MAILDEX_STATUS_OK);
    ASSERT_LT(g_get_monotonic_time() - started, 500000);
    ASSERT_EQ(maildex__commit(a), MAILDEX_STATUS_OK);
    maildex_db_close(b);
    maildex_db_close(a);
}

/* A writer killed inside a rollback-journal transaction (as `new` can be while it switches a new
 * database to WAL) leaves a hot journal that a read-only connection cannot replay by itself. */
TEST(read_only_open_repairs_an_interrupted_write)
{
    const char *path = db_file("hot");
    maildex_db_t *db;
    sqlite3 *sql;
    pid_t pid;
    int status;

    ASSERT_EQ(sqlite3_open(path, &sql), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(sql, "CREATE TABLE x(a)", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(sql);
    pid = fork();
    ASSERT(pid >= 0);
    if (pid == 0) { /* the killed writer: dirty pages spill to the file, the journal stays hot */
        if (sqlite3_open(path, &sql) != SQLITE_OK ||
            sqlite3_exec(sql, "PRAGMA cache_size=1; BEGIN; WITH RECURSIVE n(i) AS (SELECT 1 UNION "
                              "ALL SELECT i + 1 FROM n WHERE i < 500) INSERT INTO x SELECT "
                              "randomblob(1000) FROM n",
                         NULL, NULL, NULL) != SQLITE_OK)
            _exit(1);
        _exit(0);
    }
    ASSERT(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    {
        char journal[4300];
        struct stat sb;
        snprintf(journal, sizeof journal, "%s-journal", path);
        ASSERT(stat(journal, &sb) == 0 && sb.st_size > 0);
    }
    /* No schema was ever committed: the answer is "no database yet", not a write error. */
    db = NULL;
    {
        char *err = NULL;
        ASSERT_EQ(maildex_db_open(path, "/tmp", MAILDEX_DB_READ_ONLY, &db, &err),
                  MAILDEX_STATUS_FILE_NOT_FOUND);
        ASSERT(err != NULL && strstr(err, "readonly") == NULL);
        free(err);
    }
    ASSERT(db == NULL);
    db = open_or_fail(path, MAILDEX_DB_CREATE);
    ASSERT_EQ(scalar(db, "SELECT count(*) FROM x"), 0);
    maildex_db_close(db);
}

/* maildex.h promises DATABASE_ERROR when SQLite cannot close cleanly: a statement the library does
 * not own is left open on the connection (a bug in the caller); the connection is closed anyway once
 * that statement goes. */
TEST(close_reports_a_connection_that_would_not_close)
{
    maildex_db_t *db = open_or_fail(db_file("close"), MAILDEX_DB_CREATE);
    sqlite3_stmt *stray;

    ASSERT_EQ(sqlite3_prepare_v2(db->sql, "SELECT 1", -1, &stray, NULL), SQLITE_OK);
    ASSERT_EQ(maildex_db_close(db), MAILDEX_STATUS_DATABASE_ERROR);
    sqlite3_finalize(stray);
}

/* What the writer's connection lets dirty pages reach before spilling, read while a run indexes. */
struct spill_seen {
    maildex_db_t *db;
    int64_t during;
};

static void note_spill(void *data, const maildex_index_stats_t *stats, uint64_t done, uint64_t total,
                       const char *path)
{
    struct spill_seen *seen = data;

    (void) stats, (void) done, (void) total, (void) path;
    if (seen->during < 0)
        ASSERT_EQ(maildex__pragma_int(seen->db->sql, "PRAGMA cache_spill", &seen->during), SQLITE_OK);
}

/* Runs maildex_index on db and returns the cache_spill seen when its first file was done. */
static int64_t spill_while_indexing(maildex_db_t *db)
{
    struct spill_seen seen = {db, -1};
    maildex_index_options_t opts = {.progress = note_spill, .data = &seen};

    ASSERT_EQ(maildex_index(db, &opts, NULL), MAILDEX_STATUS_OK);
    return seen.during;
}

/* A bulk index (more new files than one transaction holds) spills dirty pages at the cache's size:
 * every batch dirties more pages than either limit, and the higher one only held memory (1M first
 * index: 76 MB peak before). A small run keeps the higher limit, and a bulk run puts it back. */
TEST(a_bulk_index_spills_dirty_pages_at_the_cache_size)
{
    const char *dir = test_scratch_dir("bulk-spill");
    char mail[4200], path[4300];
    maildex_db_t *db = NULL;
    int64_t after = 0;

    snprintf(mail, sizeof mail, "%s/mail", dir);
    ASSERT(mkdir(mail, 0700) == 0);
    snprintf(path, sizeof path, "%s/cur", mail);
    ASSERT(mkdir(path, 0700) == 0);
    for (int i = 0; i < 2001; i++) {
        FILE *f;
        snprintf(path, sizeof path, "%s/cur/%d:2,S", mail, i);
        ASSERT((f = fopen(path, "w")) != NULL);
        fprintf(f, "From: a@example.org\nSubject: m%d\nMessage-ID: <m%d@x>\n\nbody %d\n", i, i, i);
        ASSERT(fclose(f) == 0);
    }
    snprintf(path, sizeof path, "%s/maildex.db", dir);
    ASSERT_EQ(maildex_db_open(path, mail, MAILDEX_DB_CREATE, &db, NULL), MAILDEX_STATUS_OK);
    ASSERT_EQ(spill_while_indexing(db), 4000);
    ASSERT_EQ(maildex__pragma_int(db->sql, "PRAGMA cache_spill", &after), SQLITE_OK);
    ASSERT_EQ(after, 8000);
    snprintf(path, sizeof path, "%s/cur/new:2,S", mail);
    {
        FILE *f = fopen(path, "w");
        ASSERT(f != NULL);
        fprintf(f, "From: a@example.org\nSubject: one more\nMessage-ID: <more@x>\n\nbody\n");
        ASSERT(fclose(f) == 0);
    }
    sleep(1); /* the directory's mtime must move past the one recorded */
    ASSERT_EQ(spill_while_indexing(db), 8000);
    maildex_db_close(db);
}

/* The notmuch import's record (sql/0011): "pending" on a store made empty, "before" on one upgraded
 * with mail in it, the host's word kept inside its atomic section and rolled back with it. */
TEST(notmuch_import_record)
{
    static const char version_10[] = "INSERT INTO messages(id, message_id, thread, date) VALUES (1, 'a', 1, 0);"
                                     "DELETE FROM meta WHERE key = 'notmuch_import'; PRAGMA user_version = 10;";
    maildex_db_t *db = open_or_fail(db_file("import-record"), MAILDEX_DB_CREATE);
    const char *state;

    ASSERT_EQ(maildex_db_notmuch_import_get(db, &state), MAILDEX_STATUS_OK);
    ASSERT_STR_EQ(state, "pending");
    ASSERT_EQ(maildex_db_begin_atomic(db), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_db_notmuch_import_set(db, "done"), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_db_notmuch_import_get(db, &state), MAILDEX_STATUS_OK);
    ASSERT_STR_EQ(state, "done");
    maildex__rollback(db); /* what a failure later in the import's section does */
    ASSERT_EQ(maildex_db_notmuch_import_get(db, &state), MAILDEX_STATUS_OK);
    ASSERT_STR_EQ(state, "pending");
    ASSERT_EQ(maildex_db_notmuch_import_set(db, NULL), MAILDEX_STATUS_INVALID_ARGUMENT);
    maildex_db_close(db);
    db = upgraded_from("import-record-upgrade", version_10);
    ASSERT_EQ(maildex_db_notmuch_import_get(db, &state), MAILDEX_STATUS_OK);
    ASSERT_STR_EQ(state, "before");
    maildex_db_close(db);
}

TEST(close_accepts_null)
{
    ASSERT_EQ(maildex_db_close(NULL), MAILDEX_STATUS_OK);
    ASSERT_STR_EQ(maildex_db_errmsg(NULL), "");
}

TEST_MAIN(TEST_ENTRY(a_bulk_index_spills_dirty_pages_at_the_cache_size) TEST_ENTRY(create_applies_every_migration) TEST_ENTRY(created_file_is_private_and_wal)
              TEST_ENTRY(open_missing_without_create_fails_cleanly)
                  TEST_ENTRY(reopen_keeps_uuid_and_data)
                      TEST_ENTRY(newer_schema_is_refused_untouched)
                          TEST_ENTRY(older_schema_is_migrated_on_write_open_only)
                          TEST_ENTRY(older_text_is_packed_on_upgrade_and_still_deletes_exactly)
                              TEST_ENTRY(merged_from_is_kept_on_upgrade)
                              TEST_ENTRY(member_columns_follow_tags_and_files_in_any_order)
                              TEST_ENTRY(member_columns_are_filled_on_upgrade)
                              TEST_ENTRY(garbage_file_is_reported_not_crashed)
                              TEST_ENTRY(truncated_file_is_corrupt_even_with_page_one_in_the_wal)
                              TEST_ENTRY(growing_in_the_wal_is_not_truncation)
                              TEST_ENTRY(sql_errors_name_the_context_and_the_file)
                                  TEST_ENTRY(statement_cache_prepares_once_and_resets)
                                      TEST_ENTRY(every_cached_statement_prepares)
                                          TEST_ENTRY(transactions_nest_and_revision_bumps)
                                              TEST_ENTRY(participants_run_by_rank_at_the_outermost_commit_and_forget_on_rollback)
                                              TEST_ENTRY(read_only_handle_refuses_writes)
                                                  TEST_ENTRY(second_writer_waits_then_reports_busy)
                                                  TEST_ENTRY(write_waits_for_the_other_writer_names_it_and_gives_up_at_its_bound)
                                                  TEST_ENTRY(cancel_from_another_thread_ends_a_wait_and_all_stops_every_statement)
                                                  TEST_ENTRY(indexer_waits_for_the_other_indexer_names_it_and_gives_up_at_its_bound)
                                                  TEST_ENTRY(commit_and_begin_lets_a_waiting_writer_go_first)
                                                      TEST_ENTRY(read_only_open_repairs_an_interrupted_write)
                                                          TEST_ENTRY(close_reports_a_connection_that_would_not_close)
                                                          TEST_ENTRY(notmuch_import_record)
                                                          TEST_ENTRY(close_accepts_null))
