/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dir-watches.h: the directories `watch` keeps an inotify watch on, and what their events mean for
 * the index: which directory's listing changed, or that events were lost. Its own inotify file
 * descriptor, polled by the caller's loop (uv_poll): libuv's uv_fs_event shares one descriptor per
 * loop and drops every event whose watch descriptor it does not know, among them IN_Q_OVERFLOW
 * (wd -1), so a lost event would go unnoticed through it. Knows nothing of the database; never
 * prints. */
#ifndef MAILDEX_CLI_DIR_WATCHES_H
#define MAILDEX_CLI_DIR_WATCHES_H

#include <stdbool.h>
#include <stddef.h>

struct dir_watches;

/* Watches nothing yet under mail_root (copied). Returns NULL with errno set when inotify cannot be
 * initialised (EMFILE: fs.inotify.max_user_instances). */
struct dir_watches *dir_watches_new(const char *mail_root);
void dir_watches_free(struct dir_watches *dw);

/* The descriptor to poll for reading. */
int dir_watches_fd(const struct dir_watches *dw);

/* Makes the watched set equal to paths (relative to the mail root, "" for the root; n of them):
 * watches the new ones, forgets those not listed. For each directory it starts to watch, added is
 * called (changes made before the watch existed were not seen: the caller looks at it again); for
 * each that cannot be watched, failed with the errno (ENOENT, a directory already gone, is not
 * reported: its parent's events tell). Returns how many directories are watched. */
size_t dir_watches_sync(struct dir_watches *dw, char *const *paths, size_t n,
                        void (*added)(void *data, const char *path),
                        void (*failed)(void *data, const char *path, int err), void *data);

/* Reads every pending event and calls changed with each directory whose listing changed (a file
 * that was written and closed, moved in or out, deleted or hard-linked in; a subdirectory created,
 * moved or removed; the directory's own permissions), relative to the mail root, possibly several
 * times. A regular file that is created is reported when it is closed after writing, so a message
 * written in place is never read half-written. Returns false when events were lost (the kernel's
 * queue overflowed): only a full pass knows what changed then. */
bool dir_watches_read(struct dir_watches *dw, void (*changed)(void *data, const char *path),
                      void *data);

/* Test hooks (developer builds; `maildex watch` reads them from MAILDEX_WATCH_TEST_OVERFLOW and
 * MAILDEX_WATCH_TEST_LIMIT): after overflow_after events the rest of that read is dropped as an
 * overflow would drop it; at most limit directories can be watched (ENOSPC past it, as when
 * fs.inotify.max_user_watches is reached). 0 turns a hook off. */
void dir_watches_test_hooks(struct dir_watches *dw, unsigned overflow_after, size_t limit);

#endif
