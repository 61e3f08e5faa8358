/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The mail root pinned, and looked for when it goes (watch-root.h). */
#include "watch-root.h"

#include <glib.h>
#include <sys/stat.h>

#define ROOT_POLL_MS 1000 /* looks for a mail root that went away (mount, move back) */

/* Whether path names the pinned directory (pinning the first directory seen there). *other is set
 * when a directory is there, but another one. */
static bool here(struct watch_root *root, bool *other)
{
    struct stat sb;

    *other = false;
    if (stat(root->path, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return false;
    if (!root->pinned) {
        root->dev = (uint64_t) sb.st_dev;
        root->ino = (uint64_t) sb.st_ino;
        root->pinned = true;
    }
    *other = (uint64_t) sb.st_dev != root->dev || (uint64_t) sb.st_ino != root->ino;
    return !*other;
}

void watch_root_init(struct watch_root *root, uv_loop_t *loop, const char *path,
                     void (*back)(struct watch_root *root), void *data)
{
    root->path = path;
    root->back = back;
    root->data = data;
    uv_timer_init(loop, &root->wait);
    root->wait.data = root;
}

void watch_root_pin(struct watch_root *root)
{
    bool other;

    here(root, &other);
}

static void on_wait(uv_timer_t *t)
{
    struct watch_root *root = t->data;
    bool other;

    if (!here(root, &other))
        return;
    uv_timer_stop(&root->wait);
    root->gone = false;
    root->back(root);
}

char *watch_root_lost(struct watch_root *root)
{
    bool other;

    if (here(root, &other))
        return NULL;
    root->gone = true;
    uv_timer_start(&root->wait, on_wait, ROOT_POLL_MS, ROOT_POLL_MS);
    if (other)
        return g_strdup_printf("mail root '%s' is another directory than the one watched (moved "
                               "away and replaced?): nothing is removed; waiting for the watched "
                               "one to come back (restart watch to index the new one)",
                               root->path);
    return g_strdup_printf("mail root '%s' is gone (moved away, renamed, or a disk not mounted): "
                           "nothing is removed; waiting for it to come back",
                           root->path);
}
