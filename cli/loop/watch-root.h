/* SPDX-License-Identifier: GPL-3.0-or-later */
/* watch-root.h: the mail root a watch indexes, pinned by device and inode. A watch acts only on the
 * directory it first saw at the mail root's path, so a root moved away, renamed or replaced (or a
 * disk not mounted) is waited for, never taken for mail deleted: maildex_index is handed the pinned
 * device and inode and checks them before it removes anything. While the root is gone, it is looked
 * for every second, and the watch hears when the same directory is back.
 *
 * Usage (watch.c):
 *
 *     watch_root_init(&w->root, loop, w->mail_root, on_back, w);
 *     watch_root_pin(&w->root);                 // the directory there now, when the watch starts
 *     char *why = watch_root_lost(&w->root);    // after a round that failed: NULL, or gone
 *     uv_close((uv_handle_t *) &w->root.wait, closed);
 */
#ifndef MAILDEX_CLI_WATCH_ROOT_H
#define MAILDEX_CLI_WATCH_ROOT_H

#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

struct watch_root {
    const char *path;
    uint64_t dev, ino;  /* the directory first seen at path */
    bool pinned;
    bool gone;          /* not at path (or another one is): rounds wait */
    uv_timer_t wait;    /* looks for it while gone; its data is the struct watch_root */
    void (*back)(struct watch_root *root); /* it is back: on the loop, gone cleared */
    void *data;
};

/* Sets root up (its timer initialised on loop) for the mail root at path, which root does not copy. */
void watch_root_init(struct watch_root *root, uv_loop_t *loop, const char *path,
                     void (*back)(struct watch_root *root), void *data);

/* Pins the directory at path, when there is one and none is pinned yet. */
void watch_root_pin(struct watch_root *root);

/* NULL when the pinned directory is at path; else why not, for the log (g_malloc'd), and root is
 * gone until back is called. */
char *watch_root_lost(struct watch_root *root);

#endif
