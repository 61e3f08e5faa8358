/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Writers waiting for each other, beyond what SQLite's write lock does by itself.
 *
 * The indexer lock: one process at a time runs a pass that plans from what it read before it writes
 * (`new` scans, then applies the scan in many transactions; `reindex` collects, then re-parses).
 * SQLite's write lock is released between those transactions, so it cannot keep a second indexer
 * from applying a stale plan over the first one's work; this lock is held from before the plan until
 * the last commit. `tag` does not take it (a tag from an editor must not wait out a first index):
 * it reads its matches inside its one write transaction instead (tag/tag-query.c). It is an flock(2) on
 * "<database>-lock", which the kernel drops when the process dies (kill -9 leaves nothing to clean
 * up), holding the holder's pid for the waiting message.
 *
 * The write turn: "<database>-writer" holds the pid of the process inside a write transaction, so
 * that a writer waiting for SQLite's lock can name it; and every process waiting for that lock holds
 * a shared flock on it while it waits. SQLite wakes no waiter (its busy handler polls), so a writer
 * that commits and begins again at once (`new` between batches) would keep the lock for its whole
 * run; instead it sees the shared locks and lets the waiters go first (maildex__turn_yield). All of
 * the write turn is best effort: a file that cannot be opened costs the pid in a message, or the
 * turn, never a write.
 *
 * Neither is taken by readers, and neither replaces SQLite's own locking. */
#include "maildex-private.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

/* How often a waiting indexer looks again (and at its handle's cancellation). */
#define POLL_US 50000
/* A writer between two batches waits at most this long for the writers it lets go first to get in
 * (each looks again within 0.1 s; one that announced itself and then stopped is not waited for). */
#define YIELD_MAX_US 1000000
#define YIELD_POLL_US 2000

static int lock_destructor(struct maildex__writer_lock *lock)
{
    if (lock->fd < 0)
        return 0;
    if (lock->held && ftruncate(lock->fd, 0) != 0) /* no stale pid for the next one to name */
        lock->held = false;
    close(lock->fd); /* drops the flock */
    return 0;
}

/* The pid the holder wrote, or 0; also 0 for a process that is gone (a holder killed with -9
 * leaves its pid behind in "-writer"). */
static long holder_pid(int fd)
{
    char buf[32];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    long pid;

    if (n <= 0)
        return 0;
    buf[n] = '\0';
    pid = strtol(buf, NULL, 10);
    return pid > 0 && (kill((pid_t) pid, 0) == 0 || errno == EPERM) ? pid : 0;
}

static void record_pid(int fd)
{
    char buf[32];
    int n = snprintf(buf, sizeof buf, "%ld\n", (long) getpid());

    /* Only for the waiting message of another process: failing to write it changes nothing. */
    if (ftruncate(fd, 0) == 0 && pwrite(fd, buf, (size_t) n, 0) < 0)
        return;
}

/* "waiting for another maildex writer (pid N)" and what follows, talloc'd on ctx. */
static char *waiting_for(void *ctx, long pid, const char *then)
{
    return pid > 0 ? talloc_asprintf(ctx, "waiting for another maildex writer (pid %ld)%s", pid, then)
                   : talloc_asprintf(ctx, "waiting for another maildex writer%s", then);
}

maildex_status_t maildex__writer_lock(maildex_db_t *db, const char *what,
                                      struct maildex__writer_lock **out)
{
    struct maildex__writer_lock *lock = talloc_zero(db, struct maildex__writer_lock);
    char *path = talloc_asprintf(lock, "%s-lock", db->path);
    const long polls = (long) db->indexer_wait_ms * 1000 / POLL_US;
    long pid = 0;

    *out = NULL;
    if (lock == NULL || path == NULL) {
        talloc_free(lock);
        return maildex__error(db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
    }
    lock->fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    talloc_set_destructor(lock, lock_destructor);
    if (lock->fd < 0) {
        maildex_status_t st = maildex__error(db, MAILDEX_STATUS_IO_ERROR,
                                             "cannot open the lock file '%s': %s", path,
                                             strerror(errno));
        talloc_free(lock);
        return st;
    }
    for (long poll = 0; flock(lock->fd, LOCK_EX | LOCK_NB) != 0; poll++) {
        maildex_status_t st = MAILDEX_STATUS_OK;
        if (errno != EWOULDBLOCK && errno != EINTR)
            st = maildex__error(db, MAILDEX_STATUS_IO_ERROR, "cannot lock '%s': %s", path,
                                strerror(errno));
        else if (maildex__cancelled(db))
            st = maildex__error(db, MAILDEX_STATUS_INTERRUPTED,
                                "interrupted while waiting for another indexer");
        else if (poll >= polls)
            st = maildex__error(db, MAILDEX_STATUS_DATABASE_BUSY,
                                "another maildex writer%s has been %s for more than %d s "
                                "(database '%s'): run the command again later",
                                pid > 0 ? talloc_asprintf(lock, " (pid %ld)", pid) : "", what,
                                db->indexer_wait_ms / 1000, db->path);
        if (st != MAILDEX_STATUS_OK) {
            talloc_free(lock);
            return st;
        }
        if (poll == 0) {
            pid = holder_pid(lock->fd);
            maildex__waiting(db, waiting_for(lock, pid, talloc_asprintf(lock, " to finish %s", what)));
        }
        usleep(POLL_US);
    }
    lock->held = true;
    record_pid(lock->fd);
    talloc_free(path);
    *out = lock;
    return MAILDEX_STATUS_OK;
}

void maildex__writer_unlock(struct maildex__writer_lock *lock)
{
    talloc_free(lock);
}

/* ---- the write turn -------------------------------------------------------------------------------- */

/* db's descriptor of "<database>-writer", opened on first use; -1 when it cannot be. */
static int turn_fd(maildex_db_t *db)
{
    char *path;

    if (db->turn_fd >= 0 || db->mode == MAILDEX_DB_READ_ONLY || db->turn_failed)
        return db->turn_fd;
    path = talloc_asprintf(db, "%s-writer", db->path);
    db->turn_fd = path ? open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600) : -1;
    db->turn_failed = db->turn_fd < 0;
    talloc_free(path);
    return db->turn_fd;
}

void maildex__turn_close(maildex_db_t *db)
{
    if (db->turn_fd >= 0)
        close(db->turn_fd); /* drops an announcement with it */
    db->turn_fd = -1;
}

void maildex__turn_waiting(maildex_db_t *db)
{
    int fd = turn_fd(db);

    /* Non-blocking: a writer looking for waiters holds it exclusively for a moment; the busy
     * handler asks again at its next step. */
    if (fd >= 0 && !db->turn_announced && flock(fd, LOCK_SH | LOCK_NB) == 0)
        db->turn_announced = true;
}

void maildex__turn_begun(maildex_db_t *db, bool taken)
{
    int fd = turn_fd(db);

    if (fd < 0)
        return;
    if (db->turn_announced && flock(fd, LOCK_UN) == 0)
        db->turn_announced = false;
    if (taken)
        record_pid(fd);
}

void maildex__turn_ending(maildex_db_t *db)
{
    /* Before the COMMIT or ROLLBACK: after it, the next writer may already have written its pid. */
    if (db->turn_fd >= 0 && ftruncate(db->turn_fd, 0) != 0)
        return;
}

char *maildex__turn_waiting_message(maildex_db_t *db)
{
    int fd = turn_fd(db);
    long pid = fd >= 0 ? holder_pid(fd) : 0;

    /* Another process with SQLite's lock is not a maildex writer (or wrote no pid). */
    return pid > 0 ? waiting_for(db, pid, "")
                   : talloc_strdup(db, "waiting for another process writing to the database");
}

void maildex__turn_yield(maildex_db_t *db)
{
    int fd = turn_fd(db);

    for (long waited = 0; fd >= 0 && waited < YIELD_MAX_US; waited += YIELD_POLL_US) {
        if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
            flock(fd, LOCK_UN);
            return;
        }
        if (errno != EWOULDBLOCK && errno != EINTR)
            return;
        usleep(YIELD_POLL_US);
    }
}
