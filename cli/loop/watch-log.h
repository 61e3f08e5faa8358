/* SPDX-License-Identifier: GPL-3.0-or-later */
/* watch-log.h: where the watch's log lines go. Three kinds of place:
 *
 *   - a file (--log=FILE, or the default file of a detached watch): appended, each line led by the
 *     local time in ISO 8601 with its offset ("2024-05-01T10:00:00.123+02:00 maildex watch: ...");
 *   - stderr when it is the journal (systemd sets JOURNAL_STREAM to its device and inode): each line
 *     led by sd-daemon's priority ("<6>maildex watch: ..."), no time (the journal keeps its own);
 *   - stderr otherwise: timestamped as in a file.
 *
 * Each line is one write(2) of the whole line, so the loop's thread and a round's worker never mix
 * their lines, and a file shared by two processes (O_APPEND) neither. Nothing here exits or prints
 * elsewhere. The time is read through GDateTime, so TZ is honoured as everywhere in maildex.
 *
 * Usage:
 *
 *     char *error = NULL;
 *     struct watch_log *log = watch_log_file(ctx, path, &error);   // or watch_log_stderr(ctx)
 *     watch_log_printf(log, WATCH_LOG_INFO, "maildex watch: %d added", n);
 *     talloc_free(log);                                           // closes the file
 */
#ifndef MAILDEX_CLI_WATCH_LOG_H
#define MAILDEX_CLI_WATCH_LOG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

/* sd-daemon's priorities (syslog's numbers), the prefix under the journal. */
enum watch_log_level {
    WATCH_LOG_ERR = 3,     /* indexing or inotify failed */
    WATCH_LOG_WARNING = 4, /* a fallback: events lost, a directory unwatched, the mail root gone */
    WATCH_LOG_NOTICE = 5,  /* started, stopping, config reloaded */
    WATCH_LOG_INFO = 6,    /* a round */
};

struct watch_log;

/* A log on stderr: the journal's form when stderr is the journal stream, else timestamped. */
struct watch_log *watch_log_stderr(void *ctx);

/* A log appended to path (created 0600: it names mail folders and files). NULL with *error (talloc'd
 * on ctx) when it cannot be opened. */
struct watch_log *watch_log_file(void *ctx, const char *path, char **error);

/* Whether stderr is the journal's stream (JOURNAL_STREAM names its device and inode). */
bool watch_log_stderr_is_journal(void);

/* Where a detached watch logs without --log: $XDG_STATE_HOME/maildex/watch.log, else
 * ~/.local/state/maildex/watch.log; its directory is made (0700) when missing. Talloc'd on ctx;
 * NULL with *error when neither variable helps or the directory cannot be made. */
char *watch_log_default_path(void *ctx, char **error);

/* Points stderr at the log file, now and after each watch_log_reopen: a detached watch does, so
 * what it spawns (hooks) and anything else it prints lands there too, never on the terminal it
 * left. Nothing for a log on stderr. */
void watch_log_capture_stderr(struct watch_log *log);

/* What to tell a user who asks where the log is: the file's path, "the journal" or "stderr". */
const char *watch_log_where(const struct watch_log *log);

/* Opens the file again by its name (logrotate moved it away) in place of the old descriptor, which
 * writers on other threads keep using until then, and stderr too when it was captured. 0, or -1
 * with errno; stderr: 0. */
int watch_log_reopen(struct watch_log *log);

/* One line: fmt's text, its newlines made spaces so that it stays one line, led by the time or the
 * priority as the place wants. */
void watch_log_printf(struct watch_log *log, enum watch_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void watch_log_vprintf(struct watch_log *log, enum watch_log_level level, const char *fmt,
                       va_list ap) __attribute__((format(printf, 3, 0)));

/* The local time now as the log writes it (ISO 8601, milliseconds, offset): the status record's
 * times read as the log's do. buf holds at least WATCH_LOG_TIME_SIZE bytes. */
#define WATCH_LOG_TIME_SIZE 40
void watch_log_time(char *buf);

#endif
