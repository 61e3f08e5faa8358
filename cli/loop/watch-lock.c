/* SPDX-License-Identifier: GPL-3.0-or-later */
/* One watch per store: the lock on "<database>-watch" and the record in it (watch-lock.h). */
#include "watch-lock.h"
#include "watch-log.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>
#include <unistd.h>

/* A record is a few lines and up to WATCH_LOCK_THREADS_MAX thread ids; more than this is not ours. */
#define RECORD_MAX 65536
/* A holder writes its record just after it takes the lock; a reader that finds none complete (or
 * one that changes under it) looks again this many times, this far apart, then says "not known".
 * Up to 5 s: a holder descheduled on a loaded machine between its lock and its write took over the
 * 0.5 s this was (the second of two watches started at once named no pid, T073 under load); a
 * complete record ends the wait at the first look. */
#define READ_TRIES 500
#define READ_PAUSE_US 10000

struct watch_lock {
    int fd;
    long pid;
    unsigned long seq; /* rounds recorded */
    char *host, *since, *log, *round;
    char *event;       /* the last round's lines for a follower (watch-follow.h) */
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

/* The record: "pid=", "seq=" first and "end=" with the same number last, so a reader that catches
 * the record half rewritten (the new one's head, the old one's tail) sees two numbers that differ. */
static void write_record(struct watch_lock *lock)
{
    char *text = talloc_asprintf(lock, "pid=%ld\nseq=%lu\nhost=%s\nsince=%s\nlog=%s\n", lock->pid, lock->seq,
                                 lock->host, lock->since, lock->log);
    size_t len;

    if (lock->round)
        text = talloc_asprintf_append(text, "round=%s\n%s", lock->round, lock->event);
    text = talloc_asprintf_append(text, "end=%lu\n", lock->seq);
    len = strlen(text);
    /* In place, then cut: a reader in between sees the new record's "end" before the old tail. */
    if (pwrite(lock->fd, text, len, 0) == (ssize_t) len && ftruncate(lock->fd, (off_t) len) != 0) {
        /* the old tail stays after "end", where readers stop */
    }
    talloc_free(text);
}

/* "threads=" of a record: ids in hex, comma-separated; "*" when there were too many to list. */
static void parse_threads(void *ctx, const char *value, struct watch_holder *holder)
{
    gchar **ids = g_strsplit(value, ",", -1);
    uint64_t *threads = talloc_array(ctx, uint64_t, g_strv_length(ids) + 1);
    size_t n = 0;

    holder->threads_dropped = strcmp(value, "*") == 0;
    for (size_t i = 0; ids[i] && !holder->threads_dropped; i++)
        if (ids[i][0])
            threads[n++] = g_ascii_strtoull(ids[i], NULL, 16);
    g_strfreev(ids);
    holder->last.threads = threads;
    holder->last.n_threads = n;
}

/* One "key=value" line of the last round (watch_lock_round's lines); false for another key. */
static bool parse_round_line(void *ctx, const char *key, const char *value, struct watch_holder *holder)
{
    struct watch_round *r = &holder->last;

    if (strcmp(key, "added") == 0)
        r->added = g_ascii_strtoull(value, NULL, 10);
    else if (strcmp(key, "removed") == 0)
        r->removed = g_ascii_strtoull(value, NULL, 10);
    else if (strcmp(key, "renamed") == 0)
        r->renamed = g_ascii_strtoull(value, NULL, 10);
    else if (strcmp(key, "full") == 0)
        r->full = strcmp(value, "1") == 0;
    else if (strcmp(key, "status") == 0)
        r->status = (int) strtol(value, NULL, 10);
    else if (strcmp(key, "error") == 0)
        r->error = talloc_strdup(ctx, value);
    else if (strcmp(key, "threads") == 0)
        parse_threads(ctx, value, holder);
    else
        return false;
    return true;
}

/* Parses a record into *holder; false unless it is whole: its "end=" line read, with the number of
 * its "seq=" line. */
static bool parse_record(void *ctx, char *text, struct watch_holder *holder)
{
    char *save = NULL;

    memset(holder, 0, sizeof *holder);
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *eq = strchr(line, '='), *value;
        if (eq == NULL)
            continue;
        *eq = '\0';
        value = eq + 1;
        if (strcmp(line, "end") == 0)
            return strtoul(value, NULL, 10) == holder->seq;
        if (strcmp(line, "pid") == 0)
            holder->pid = strtol(value, NULL, 10);
        else if (strcmp(line, "seq") == 0)
            holder->seq = strtoul(value, NULL, 10);
        else if (strcmp(line, "host") == 0)
            holder->host = talloc_strdup(ctx, value);
        else if (strcmp(line, "since") == 0)
            holder->since = talloc_strdup(ctx, value);
        else if (strcmp(line, "log") == 0)
            holder->log = talloc_strdup(ctx, value);
        else if (strcmp(line, "round") == 0)
            holder->round = talloc_strdup(ctx, value);
        else
            parse_round_line(ctx, line, value, holder);
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
    bool whole = false;

    for (int i = 0; i < READ_TRIES && !whole; i++) {
        g_usleep(READ_PAUSE_US);
        second = read_text(ctx, fd);
        whole = first && second && strcmp(first, second) == 0 && parse_record(ctx, first, holder);
        talloc_free(first); /* the holder's strings are copies */
        first = second;
    }
    talloc_free(first);
    if (!whole)
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

/* The round's lines of the record, for a follower to pass on as its own round. */
static char *round_lines(void *ctx, const struct watch_round *r)
{
    char *text = talloc_asprintf(ctx, "added=%" PRIu64 "\nremoved=%" PRIu64 "\nrenamed=%" PRIu64 "\nfull=%d\n"
                                      "status=%d\n",
                                 r->added, r->removed, r->renamed, r->full ? 1 : 0, r->status);

    if (r->error)
        text = talloc_asprintf_append(text, "error=%s\n", one_line(text, r->error));
    if (r->n_threads > WATCH_LOCK_THREADS_MAX)
        return talloc_strdup_append(text, "threads=*\n");
    text = talloc_strdup_append(text, "threads=");
    for (size_t i = 0; i < r->n_threads; i++)
        text = talloc_asprintf_append(text, "%s%016" PRIx64, i ? "," : "", r->threads[i]);
    return talloc_strdup_append(text, "\n");
}

void watch_lock_round(struct watch_lock *lock, const char *text, const struct watch_round *round)
{
    if (lock == NULL) /* a deferred watch that could not take over: no record of its own */
        return;
    talloc_free(lock->round);
    talloc_free(lock->event);
    lock->round = one_line(lock, text);
    lock->event = round_lines(lock, round);
    lock->seq++;
    write_record(lock);
}

bool watch_lock_peek(void *ctx, const char *db_path, struct watch_holder *holder)
{
    char *path = watch_lock_path(ctx, db_path), *text;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    bool whole = false;

    memset(holder, 0, sizeof *holder);
    if (fd >= 0 && (text = read_text(ctx, fd)) != NULL) {
        whole = parse_record(ctx, text, holder);
        talloc_free(text);
    }
    if (fd >= 0)
        close(fd);
    talloc_free(path);
    return whole;
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
