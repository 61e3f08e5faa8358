/* SPDX-License-Identifier: GPL-3.0-or-later */
/* One watch per store: the lock on "<database>-watch" and the record in it (watch-lock.h). */
#include "watch-lock.h"
#include "watch-log.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>
#include <unistd.h>

/* A record is a few lines; more than this is not ours. */
#define RECORD_MAX 16384
/* A holder writes its record just after it takes the lock; a reader that finds none complete (or
 * one that changes under it) looks again this many times, this far apart, then says "not known". */
#define READ_TRIES 50
#define READ_PAUSE_US 10000

struct watch_lock {
    int fd;
    long pid;
    char *host, *since, *log, *round;
};

char *watch_holder_text(void *ctx, const char *db_path, const struct watch_holder *holder)
{
    bool server = holder->host && strcmp(holder->host, "watch") != 0;

    if (holder->pid == 0)
        return talloc_asprintf(ctx, "'%s'", db_path);
    return talloc_asprintf(ctx, "'%s' (pid %ld%s%s)", db_path, holder->pid, server ? ", in maildex " : "",
                           server ? holder->host : "");
}

char *watch_lock_path(void *ctx, const char *db_path)
{
    return talloc_asprintf(ctx, "%s-watch", db_path);
}

static int lock_destructor(struct watch_lock *lock)
{
    /* A clean stop leaves no record behind; one that a kill -9 leaves is void (the lock is free). */
    if (ftruncate(lock->fd, 0) != 0) {
        /* then the record stays, as after a kill -9: void once the lock is free */
    }
    close(lock->fd); /* drops the lock */
    return 0;
}

/* A value on one line of the record. */
static char *one_line(void *ctx, const char *text)
{
    char *copy = talloc_strdup(ctx, text);

    for (char *p = copy; *p; p++)
        if (*p == '\n')
            *p = ' ';
    return copy;
}

static void write_record(struct watch_lock *lock)
{
    char *text = talloc_asprintf(lock, "pid=%ld\nhost=%s\nsince=%s\nlog=%s\n", lock->pid, lock->host,
                                 lock->since, lock->log);
    size_t len;

    if (lock->round)
        text = talloc_asprintf_append(text, "round=%s\n", lock->round);
    text = talloc_strdup_append(text, "end\n");
    len = strlen(text);
    /* In place, then cut: a reader in between sees the new record's "end" before the old tail. */
    if (pwrite(lock->fd, text, len, 0) == (ssize_t) len && ftruncate(lock->fd, (off_t) len) != 0) {
        /* the old tail stays after "end", where readers stop */
    }
    talloc_free(text);
}

/* Parses a record into *holder; false unless it is complete (its "end" line read). */
static bool parse_record(void *ctx, char *text, struct watch_holder *holder)
{
    char *save = NULL;

    memset(holder, 0, sizeof *holder);
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *eq = strchr(line, '=');
        if (strcmp(line, "end") == 0)
            return true;
        if (eq == NULL)
            continue;
        *eq = '\0';
        if (strcmp(line, "pid") == 0)
            holder->pid = strtol(eq + 1, NULL, 10);
        else if (strcmp(line, "host") == 0)
            holder->host = talloc_strdup(ctx, eq + 1);
        else if (strcmp(line, "since") == 0)
            holder->since = talloc_strdup(ctx, eq + 1);
        else if (strcmp(line, "log") == 0)
            holder->log = talloc_strdup(ctx, eq + 1);
        else if (strcmp(line, "round") == 0)
            holder->round = talloc_strdup(ctx, eq + 1);
    }
    return false;
}

/* The file's bytes (NUL-terminated, talloc'd on ctx), or NULL. */
static char *read_text(void *ctx, int fd)
{
    char *buf = talloc_size(ctx, RECORD_MAX + 1);
    size_t len = 0;
    ssize_t n;

    while (len < RECORD_MAX && (n = pread(fd, buf + len, RECORD_MAX - len, (off_t) len)) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            talloc_free(buf);
            return NULL;
        }
        len += (size_t) n;
    }
    buf[len] = '\0';
    return buf;
}

/* The holder's record: complete, and the same when read twice READ_PAUSE_US apart. It is rewritten
 * in place after each round; and a holder that has just taken the lock writes its own a moment
 * later, so the record of one killed before it may still be there: read twice, the new one shows
 * (a stale pid would have --stop signal a process that is not a watch). */
static void read_holder(void *ctx, int fd, struct watch_holder *holder)
{
    char *first = read_text(ctx, fd), *second;

    for (int i = 0; i < READ_TRIES; i++) {
        g_usleep(READ_PAUSE_US);
        second = read_text(ctx, fd);
        if (first && second && strcmp(first, second) == 0 && parse_record(ctx, first, holder))
            return;
        first = second;
    }
    memset(holder, 0, sizeof *holder);
}

static int whole_file(int fd, int cmd, struct flock *fl)
{
    memset(fl, 0, sizeof *fl);
    fl->l_type = F_WRLCK;
    fl->l_whence = SEEK_SET;
    return fcntl(fd, cmd, fl);
}

enum watch_lock_result watch_lock_take(void *ctx, const char *db_path, const char *host, const char *log,
                                       struct watch_lock **out, struct watch_holder *holder, char **error)
{
    char *path = watch_lock_path(ctx, db_path), stamp[WATCH_LOG_TIME_SIZE];
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOCTTY, 0600);
    struct watch_lock *lock;
    struct flock fl;

    *out = NULL;
    if (fd < 0 || whole_file(fd, F_OFD_SETLK, &fl) != 0) {
        bool held = fd >= 0 && (errno == EAGAIN || errno == EACCES);
        if (held && holder)
            read_holder(ctx, fd, holder);
        if (!held)
            *error = talloc_asprintf(ctx, "cannot lock '%s': %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        talloc_free(path);
        return held ? WATCH_LOCK_HELD : WATCH_LOCK_FAILED;
    }
    talloc_free(path);
    lock = talloc_zero(ctx, struct watch_lock);
    lock->fd = fd;
    lock->pid = (long) getpid();
    watch_log_time(stamp);
    lock->host = one_line(lock, host);
    lock->since = talloc_strdup(lock, stamp);
    lock->log = one_line(lock, log);
    talloc_set_destructor(lock, lock_destructor);
    write_record(lock);
    *out = lock;
    return WATCH_LOCK_TAKEN;
}

void watch_lock_round(struct watch_lock *lock, const char *round)
{
    if (lock == NULL) /* a deferred watch that could not take over: no record of its own */
        return;
    talloc_free(lock->round);
    lock->round = one_line(lock, round);
    write_record(lock);
}

enum watch_lock_result watch_lock_read(void *ctx, const char *db_path, struct watch_holder *holder, char **error)
{
    char *path = watch_lock_path(ctx, db_path);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    enum watch_lock_result result = WATCH_LOCK_FREE;
    struct flock fl;

    memset(holder, 0, sizeof *holder);
    if (fd < 0 && errno != ENOENT) {
        *error = talloc_asprintf(ctx, "cannot read '%s': %s", path, strerror(errno));
        result = WATCH_LOCK_FAILED;
    } else if (fd >= 0 && whole_file(fd, F_OFD_GETLK, &fl) != 0) {
        *error = talloc_asprintf(ctx, "cannot test the lock on '%s': %s", path, strerror(errno));
        result = WATCH_LOCK_FAILED;
    } else if (fd >= 0 && fl.l_type != F_UNLCK) {
        read_holder(ctx, fd, holder);
        result = WATCH_LOCK_HELD;
    }
    if (fd >= 0)
        close(fd);
    talloc_free(path);
    return result;
}
