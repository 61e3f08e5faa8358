/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The purge log (see purge-log.h): appended to, synced, rotated. Its lines are dump lines, so that
 * `maildex restore` reads the log as it is; it never holds a line that was not synced before the
 * caller removed a file, which is the point of it. */
#include "purge-log.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <talloc.h>
#include <time.h>
#include <unistd.h>

static const char header[] = "#notmuch-dump batch-tag:3 properties,tags\n";

struct maildex__purge_log {
    int fd;
    GString *held;
};

static int log_destructor(struct maildex__purge_log *log)
{
    if (log->fd >= 0)
        close(log->fd);
    if (log->held)
        g_string_free(log->held, TRUE);
    return 0;
}

static int sync_parent(const char *path)
{
    char *dir = g_path_get_dirname(path);
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), err = 0;

    if (fd < 0 || fsync(fd) != 0)
        err = errno;
    if (fd >= 0)
        close(fd);
    g_free(dir);
    return err;
}

/* path.3 to path.4, ..., path to path.1, when path is past the size. */
static int rotate(const char *path)
{
    struct stat sb;
    int err = 0;

    if (stat(path, &sb) != 0 || sb.st_size < MAILDEX__PURGE_LOG_ROTATE)
        return 0;
    for (int n = MAILDEX__PURGE_LOG_KEEP; n >= 1 && err == 0; n--) {
        char *from = n > 1 ? g_strdup_printf("%s.%d", path, n - 1) : g_strdup(path);
        char *to = g_strdup_printf("%s.%d", path, n);
        if (rename(from, to) != 0 && errno != ENOENT)
            err = errno;
        g_free(from);
        g_free(to);
    }
    return err ? err : sync_parent(path);
}

static int write_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errno;
        buf += n;
        len -= (size_t) n;
    }
    return 0;
}

struct maildex__purge_log *maildex__purge_log_open(void *ctx, const char *path, int64_t now,
                                                   const char *what)
{
    struct maildex__purge_log *log = talloc_zero(ctx, struct maildex__purge_log);
    char stamp[32];
    time_t t = (time_t) now;
    struct tm tm;
    off_t end;
    int err = log ? rotate(path) : ENOMEM;

    if (log == NULL || err != 0) {
        talloc_free(log);
        errno = err;
        return NULL;
    }
    log->fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    talloc_set_destructor(log, log_destructor);
    log->held = g_string_new("");
    if (log->fd < 0 || (end = lseek(log->fd, 0, SEEK_END)) < 0 || (end == 0 && (err = sync_parent(path)))) {
        err = err ? err : errno;
        talloc_free(log);
        errno = err;
        return NULL;
    }
    if (end == 0)
        g_string_append(log->held, header);
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
    g_string_append_printf(log->held, "# maildex purge %s: ", stamp);
    for (const char *p = what; *p; p++) /* one comment line, whatever a folder's name holds */
        g_string_append_c(log->held, *p == '\n' || *p == '\r' ? ' ' : *p);
    g_string_append_c(log->held, '\n');
    return log;
}

int maildex__purge_log_add(struct maildex__purge_log *log, const char *line)
{
    g_string_append(log->held, line);
    g_string_append_c(log->held, '\n');
    return 0;
}

int maildex__purge_log_sync(struct maildex__purge_log *log)
{
    int err = write_all(log->fd, log->held->str, log->held->len);

    if (err == 0 && fsync(log->fd) != 0)
        err = errno;
    if (err == 0)
        g_string_truncate(log->held, 0);
    return err;
}
