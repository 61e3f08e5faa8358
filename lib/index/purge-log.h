/* SPDX-License-Identifier: GPL-3.0-or-later */
/* purge-log.h: the purge log, what maildex_purge writes before any file goes: a dump in notmuch's
 * batch-tag format ("#notmuch-dump batch-tag:3 properties,tags" heads each file), to which each run
 * appends a comment with its time and then the lines of its messages, which the caller formats
 * (tag/batch-line.c). Lines are held until maildex__purge_log_sync writes and fsyncs them. Past
 * MAILDEX__PURGE_LOG_ROTATE bytes the log is moved to ".1" (".1" to ".2" ... up to ".4", the oldest
 * dropped) when a run opens it. Nothing here knows the database. */
#ifndef MAILDEX_PURGE_LOG_H
#define MAILDEX_PURGE_LOG_H

#include <stdint.h>

#define MAILDEX__PURGE_LOG_ROTATE (4 << 20)
#define MAILDEX__PURGE_LOG_KEEP 4

struct maildex__purge_log;

/* Opens path for appending (created 0600, its directory synced), rotating it first when it is past
 * the size, and holds the run's comment (now, in seconds, and what, a few words). A talloc child of
 * ctx; its destructor closes the file. Returns NULL with errno set. */
struct maildex__purge_log *maildex__purge_log_open(void *ctx, const char *path, int64_t now,
                                                   const char *what);

/* Holds line (without its newline) for the next sync. Returns 0 or ENOMEM. */
int maildex__purge_log_add(struct maildex__purge_log *log, const char *line);

/* Writes what is held and fsyncs the file. Returns 0 or an errno value. */
int maildex__purge_log_sync(struct maildex__purge_log *log);

#endif
