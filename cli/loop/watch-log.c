/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The watch's log (watch-log.h): a file or stderr, timestamped, or the journal's priorities. */
#include "watch-log.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <talloc.h>
#include <unistd.h>

struct watch_log {
    int fd;         /* the file's, or STDERR_FILENO (not ours to close) */
    char *path;     /* the file's; NULL for stderr */
    bool journal;   /* priorities instead of times */
    bool stderr_too; /* stderr points at the file (watch_log_capture_stderr) */
};

static int log_destructor(struct watch_log *log)
{
    if (log->path && log->fd >= 0)
        close(log->fd);
    return 0;
}

bool watch_log_stderr_is_journal(void)
{
    const char *stream = getenv("JOURNAL_STREAM");
    unsigned long long dev, ino;
    struct stat st;

    /* The variable is inherited by whatever systemd's service starts; only the stderr it names is
     * the journal (a `maildex watch 2>file` run from a unit's shell script is not). */
    if (stream == NULL || sscanf(stream, "%llu:%llu", &dev, &ino) != 2 || fstat(STDERR_FILENO, &st) != 0)
        return false;
    return (unsigned long long) st.st_dev == dev && (unsigned long long) st.st_ino == ino;
}

struct watch_log *watch_log_stderr(void *ctx)
{
    struct watch_log *log = talloc_zero(ctx, struct watch_log);

    log->fd = STDERR_FILENO;
    log->journal = watch_log_stderr_is_journal();
    return log;
}

static int open_log(const char *path)
{
    return open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0600);
}

struct watch_log *watch_log_file(void *ctx, const char *path, char **error)
{
    struct watch_log *log;
    int fd = open_log(path);

    if (fd < 0) {
        *error = talloc_asprintf(ctx, "cannot open the log file '%s': %s", path, strerror(errno));
        return NULL;
    }
    log = talloc_zero(ctx, struct watch_log);
    log->fd = fd;
    log->path = talloc_strdup(log, path);
    talloc_set_destructor(log, log_destructor);
    return log;
}

char *watch_log_default_path(void *ctx, char **error)
{
    const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
    char *dir;

    /* The XDG base directory spec: a relative value is invalid and ignored. */
    if (state != NULL && state[0] == '/')
        dir = talloc_asprintf(ctx, "%s/maildex", state);
    else if (home != NULL && home[0] == '/')
        dir = talloc_asprintf(ctx, "%s/.local/state/maildex", home);
    else {
        *error = talloc_strdup(ctx, "neither XDG_STATE_HOME nor HOME is set: give the log's place with --log=FILE");
        return NULL;
    }
    if (g_mkdir_with_parents(dir, 0700) != 0) {
        *error = talloc_asprintf(ctx, "cannot create directory '%s': %s", dir, strerror(errno));
        return NULL;
    }
    return talloc_asprintf_append(dir, "/watch.log");
}

void watch_log_capture_stderr(struct watch_log *log)
{
    if (log->path && dup2(log->fd, STDERR_FILENO) >= 0)
        log->stderr_too = true;
}

const char *watch_log_where(const struct watch_log *log)
{
    return log->path ? log->path : log->journal ? "the journal" : "stderr";
}

int watch_log_reopen(struct watch_log *log)
{
    int fd, rc = 0;

    if (log->path == NULL)
        return 0;
    if ((fd = open_log(log->path)) < 0)
        return -1;
    /* dup3 swaps the file under the same number at once: a line written meanwhile on a round's
     * worker goes to the old file or the new one, never to a closed descriptor. */
    if (dup3(fd, log->fd, O_CLOEXEC) < 0 || (log->stderr_too && dup2(fd, STDERR_FILENO) < 0))
        rc = -1;
    close(fd);
    return rc;
}

void watch_log_time(char *buf)
{
    GDateTime *now = g_date_time_new_now_local();
    char *seconds = g_date_time_format(now, "%Y-%m-%dT%H:%M:%S"), *offset = g_date_time_format(now, "%:z");

    snprintf(buf, WATCH_LOG_TIME_SIZE, "%s.%03d%s", seconds, g_date_time_get_microsecond(now) / 1000, offset);
    g_free(seconds);
    g_free(offset);
    g_date_time_unref(now);
}

static void write_all(int fd, const char *text, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, text, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) /* a full disk or a closed stderr: nowhere else to say so */
            return;
        text += n;
        len -= (size_t) n;
    }
}

void watch_log_vprintf(struct watch_log *log, enum watch_log_level level, const char *fmt, va_list ap)
{
    char stamp[WATCH_LOG_TIME_SIZE];
    GString *line = g_string_new(NULL);
    size_t start;

    if (log->journal) {
        g_string_printf(line, "<%d>", (int) level);
    } else {
        watch_log_time(stamp);
        g_string_printf(line, "%s ", stamp);
    }
    start = line->len;
    g_string_append_vprintf(line, fmt, ap);
    for (size_t i = start; i < line->len; i++)
        if (line->str[i] == '\n')
            line->str[i] = ' ';
    g_string_append_c(line, '\n');
    write_all(log->fd, line->str, line->len);
    g_string_free(line, TRUE);
}

void watch_log_printf(struct watch_log *log, enum watch_log_level level, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    watch_log_vprintf(log, level, fmt, ap);
    va_end(ap);
}
