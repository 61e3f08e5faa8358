/* The indexer lock: one process at a time runs a pass that plans from what it read before it writes
 * (`new` scans, then applies the scan in many transactions; `reindex` collects, then re-parses).
 * SQLite's write lock is released between those transactions, so it cannot keep a second indexer
 * from applying a stale plan over the first one's work; this lock is held from before the plan until
 * the last commit. `tag` does not take it (a tag from an editor must not wait out a first index):
 * it reads its matches inside its one write transaction instead (tag-query.c).
 *
 * It is an flock(2) on "<database>-lock", which the kernel drops when the process dies (kill -9
 * leaves nothing to clean up), holding the holder's pid for the waiting message. It must not be
 * taken by readers, and it never replaces SQLite's own locking. */
#include "maildex-private.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

/* How often a waiting indexer looks again (and at its interrupt flag). */
#define POLL_US 50000

static int lock_destructor(struct maildex__writer_lock *lock)
{
    if (lock->fd < 0)
        return 0;
    if (lock->held && ftruncate(lock->fd, 0) != 0) /* no stale pid for the next one to name */
        lock->held = false;
    close(lock->fd); /* drops the flock */
    return 0;
}

/* The pid the holder wrote, or 0. */
static long holder_pid(int fd)
{
    char buf[32];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);

    if (n <= 0)
        return 0;
    buf[n] = '\0';
    return strtol(buf, NULL, 10);
}

static void record_pid(int fd)
{
    char buf[32];
    int n = snprintf(buf, sizeof buf, "%ld\n", (long) getpid());

    /* Only for the waiting message of another process: failing to write it changes nothing. */
    if (ftruncate(fd, 0) == 0 && pwrite(fd, buf, (size_t) n, 0) < 0)
        return;
}

maildex_status_t maildex__writer_lock(maildex_db_t *db, const char *what,
                                      const volatile int *interrupted,
                                      struct maildex__writer_lock **out)
{
    struct maildex__writer_lock *lock = talloc_zero(db, struct maildex__writer_lock);
    char *path = talloc_asprintf(lock, "%s-lock", db->path);
    bool told = false;

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
    while (flock(lock->fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno != EWOULDBLOCK && errno != EINTR) {
            maildex_status_t st = maildex__error(db, MAILDEX_STATUS_IO_ERROR, "cannot lock '%s': %s",
                                                 path, strerror(errno));
            talloc_free(lock);
            return st;
        }
        if (interrupted && *interrupted) {
            talloc_free(lock);
            return maildex__error(db, MAILDEX_STATUS_INTERRUPTED,
                                  "interrupted while waiting for another indexer");
        }
        if (!told) {
            long pid = holder_pid(lock->fd);
            char *msg = pid > 0 ? talloc_asprintf(lock, "waiting for another process (pid %ld) %s "
                                                        "to finish",
                                                  pid, what)
                                : talloc_asprintf(lock, "waiting for another process %s to finish",
                                                  what);
            maildex__waiting(db, msg);
            told = true;
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
