/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fault-shim.c: an LD_PRELOAD library for the crash and concurrency tests (test/T065-tag-crash.sh,
 * test/T063-writers-wait.sh, test/T270-purge.sh). It kills the process with SIGKILL at an exact
 * point of a tag change's commit, Maildir renames or a purge's unlinks, which a signal sent from
 * outside cannot hit reliably, or makes a write transaction last as long as a test needs; maildex
 * itself has no test hook. It counts the renames the process makes (rename(2), renameat2(2)) and
 * watches SQLite's steps:
 *   MAILDEX_KILL_AT_COMMIT=N     as the Nth write transaction (BEGIN IMMEDIATE, as maildex
 *                                writes) is about to commit; SQLite's own read transactions and
 *                                sqlite3_exec's COMMITs of them are not counted
 *   MAILDEX_KILL_AT_RENAME=N     as the Nth rename is about to be made
 *   MAILDEX_KILL_AFTER_RENAME=N  at the first SQLite step once N renames were made (the update of
 *                                the Nth file's row, before it commits)
 *   MAILDEX_KILL_AT_UNLINK=N     as the Nth unlinkat(2) of a file is about to be made (purge removes
 *                                mail files so; SQLite's own unlink(2) of its files is not counted)
 *   MAILDEX_STALL_IN_WRITE=MS    sleeps MS milliseconds at the first step after each write
 *                                transaction began (holding SQLite's write lock all the while)
 *   MAILDEX_STALL_AT_COMMIT=MS   sleeps MS milliseconds before each write transaction commits
 *                                (everything it did is done, the lock still held)
 *   MAILDEX_BUSY_AT_BEGIN=N      the Nth BEGIN IMMEDIATE fails with SQLITE_BUSY at once, as after
 *                                the whole wait for another writer
 * Never linked into maildex; built by `make check` only. */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct sqlite3_stmt sqlite3_stmt;

int rename(const char *from, const char *to);
int renameat2(int from_dir, const char *from, int to_dir, const char *to, unsigned int flags);
int unlinkat(int dir, const char *name, int flags);
int sqlite3_step(sqlite3_stmt *stmt);

static long renames, unlinks, commits, begins;
static int writing; /* a BEGIN IMMEDIATE ran since the last COMMIT */
static int begun;   /* ... and no step followed it yet */

static long setting(const char *name)
{
    const char *value = getenv(name);
    return value ? atol(value) : 0;
}

static void *next(const char *symbol)
{
    void *fn = dlsym(RTLD_NEXT, symbol);

    if (fn == NULL) {
        fprintf(stderr, "fault-shim: no %s\n", symbol);
        abort();
    }
    return fn;
}

static void before_rename(void)
{
    long at = setting("MAILDEX_KILL_AT_RENAME");

    if (at > 0 && renames + 1 == at)
        raise(SIGKILL);
}

int rename(const char *from, const char *to)
{
    int (*real)(const char *, const char *) = (int (*)(const char *, const char *)) next("rename");
    int rc;

    before_rename();
    rc = real(from, to);
    renames += rc == 0;
    return rc;
}

int renameat2(int from_dir, const char *from, int to_dir, const char *to, unsigned int flags)
{
    int (*real)(int, const char *, int, const char *, unsigned int) =
        (int (*)(int, const char *, int, const char *, unsigned int)) next("renameat2");
    int rc;

    before_rename();
    rc = real(from_dir, from, to_dir, to, flags);
    renames += rc == 0;
    return rc;
}

int unlinkat(int dir, const char *name, int flags)
{
    int (*real)(int, const char *, int) = (int (*)(int, const char *, int)) next("unlinkat");
    long at = setting("MAILDEX_KILL_AT_UNLINK");

    if (flags == 0 && at > 0 && ++unlinks == at)
        raise(SIGKILL);
    return real(dir, name, flags);
}

int sqlite3_step(sqlite3_stmt *stmt)
{
    int (*real)(sqlite3_stmt *) = (int (*)(sqlite3_stmt *)) next("sqlite3_step");
    const char *(*sql)(sqlite3_stmt *) = (const char *(*)(sqlite3_stmt *)) next("sqlite3_sql");
    long after = setting("MAILDEX_KILL_AFTER_RENAME"), at_commit = setting("MAILDEX_KILL_AT_COMMIT");
    const char *text = sql(stmt);

    if (after > 0 && renames >= after)
        raise(SIGKILL);
    if (begun) {
        long stall = setting("MAILDEX_STALL_IN_WRITE");
        struct timespec ts = {stall / 1000, (stall % 1000) * 1000000};
        begun = 0;
        if (stall > 0)
            nanosleep(&ts, NULL);
    }
    if (text && strcmp(text, "COMMIT") == 0 && writing) {
        long stall = setting("MAILDEX_STALL_AT_COMMIT");
        struct timespec ts = {stall / 1000, (stall % 1000) * 1000000};
        writing = 0;
        if (++commits == at_commit)
            raise(SIGKILL);
        if (stall > 0)
            nanosleep(&ts, NULL);
    }
    if (text && strcmp(text, "BEGIN IMMEDIATE") == 0) {
        int rc = ++begins == setting("MAILDEX_BUSY_AT_BEGIN") ? 5 /* SQLITE_BUSY */ : real(stmt);
        writing = begun = rc == 101; /* SQLITE_DONE: the write lock is held */
        return rc;
    }
    return real(stmt);
}
