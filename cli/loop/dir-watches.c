/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The inotify watches of `watch` (dir-watches.h): a map both ways between watch descriptors and
 * directories relative to the mail root, and the decoding of events into "this directory changed". */
#include "dir-watches.h"

#include <errno.h>
#include <glib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

/* What changes a directory's listing, and the directory itself going. IN_CREATE of a regular file
 * is only looked at (hard links, symlinks): a new file counts once it is closed after writing. */
#define WATCH_MASK                                                                            \
    (IN_CREATE | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE | IN_ATTRIB |         \
     IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_EXCL_UNLINK)

struct dir_watches {
    int fd;
    char *root;
    GHashTable *by_wd;   /* wd -> path (owned) */
    GHashTable *by_path; /* path (borrowed from by_wd) -> wd */
    unsigned overflow_after, seen;
    size_t limit;
};

struct dir_watches *dir_watches_new(const char *mail_root)
{
    int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    struct dir_watches *dw;

    if (fd < 0)
        return NULL;
    dw = g_new0(struct dir_watches, 1);
    dw->fd = fd;
    dw->root = g_strdup(mail_root);
    dw->by_wd = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
    dw->by_path = g_hash_table_new(g_str_hash, g_str_equal);
    return dw;
}

void dir_watches_free(struct dir_watches *dw)
{
    if (dw == NULL)
        return;
    close(dw->fd);
    g_hash_table_destroy(dw->by_path);
    g_hash_table_destroy(dw->by_wd);
    g_free(dw->root);
    g_free(dw);
}

int dir_watches_fd(const struct dir_watches *dw)
{
    return dw->fd;
}

void dir_watches_test_hooks(struct dir_watches *dw, unsigned overflow_after, size_t limit)
{
    dw->overflow_after = overflow_after;
    dw->limit = limit;
}

/* Whether path is under (or is) dir; "" is the mail root, above everything. */
static bool within(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    return n == 0 || (strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/'));
}

static void forget(struct dir_watches *dw, int wd, bool remove_watch)
{
    const char *path = g_hash_table_lookup(dw->by_wd, GINT_TO_POINTER(wd));

    if (path == NULL)
        return;
    if (remove_watch)
        inotify_rm_watch(dw->fd, wd);
    g_hash_table_remove(dw->by_path, path);
    g_hash_table_remove(dw->by_wd, GINT_TO_POINTER(wd));
}

/* A directory moved away or removed: its watches and those below it go now, because a directory
 * moved elsewhere under the mail root keeps its watch descriptor, which its new path must get. */
static void forget_subtree(struct dir_watches *dw, const char *dir)
{
    GArray *wds = g_array_new(FALSE, FALSE, sizeof(int));
    GHashTableIter it;
    gpointer path, wd;

    g_hash_table_iter_init(&it, dw->by_path);
    while (g_hash_table_iter_next(&it, &path, &wd))
        if (within(path, dir)) {
            int w = GPOINTER_TO_INT(wd);
            g_array_append_val(wds, w);
        }
    for (guint i = 0; i < wds->len; i++)
        forget(dw, g_array_index(wds, int, i), true);
    g_array_free(wds, TRUE);
}

static int add(struct dir_watches *dw, const char *path)
{
    char *abs = path[0] ? g_build_filename(dw->root, path, NULL) : g_strdup(dw->root);
    int wd;

    if (dw->limit && g_hash_table_size(dw->by_wd) >= dw->limit) {
        errno = ENOSPC;
        wd = -1;
    } else {
        wd = inotify_add_watch(dw->fd, abs, WATCH_MASK);
    }
    g_free(abs);
    if (wd < 0)
        return errno;
    /* The same directory under another name (a symlink) keeps one descriptor: the last name wins. */
    forget(dw, wd, false);
    g_hash_table_insert(dw->by_wd, GINT_TO_POINTER(wd), g_strdup(path));
    g_hash_table_insert(dw->by_path, g_hash_table_lookup(dw->by_wd, GINT_TO_POINTER(wd)),
                        GINT_TO_POINTER(wd));
    return 0;
}

size_t dir_watches_sync(struct dir_watches *dw, char *const *paths, size_t n,
                        void (*added)(void *data, const char *path),
                        void (*failed)(void *data, const char *path, int err), void *data)
{
    GHashTable *wanted = g_hash_table_new(g_str_hash, g_str_equal);
    GHashTableIter it;
    gpointer path, wd;
    GArray *stale = g_array_new(FALSE, FALSE, sizeof(int));

    for (size_t i = 0; i < n; i++)
        g_hash_table_add(wanted, paths[i]);
    g_hash_table_iter_init(&it, dw->by_path);
    while (g_hash_table_iter_next(&it, &path, &wd))
        if (!g_hash_table_contains(wanted, path)) {
            int w = GPOINTER_TO_INT(wd);
            g_array_append_val(stale, w);
        }
    for (guint i = 0; i < stale->len; i++)
        forget(dw, g_array_index(stale, int, i), true);
    for (size_t i = 0; i < n; i++) {
        int err;
        if (g_hash_table_contains(dw->by_path, paths[i]))
            continue;
        if ((err = add(dw, paths[i])) == 0 && added)
            added(data, paths[i]);
        else if (err != 0 && err != ENOENT && err != ENOTDIR && failed)
            failed(data, paths[i], err);
    }
    g_array_free(stale, TRUE);
    g_hash_table_destroy(wanted);
    return g_hash_table_size(dw->by_wd);
}

/* A regular file created: a hard link or a symlink is there whole at once; anything else will be
 * closed after writing (IN_CLOSE_WRITE). */
static bool complete_on_create(const char *dir_abs, const char *name)
{
    char *abs = g_build_filename(dir_abs, name, NULL);
    struct stat sb;
    bool whole = lstat(abs, &sb) == 0 && (S_ISLNK(sb.st_mode) || sb.st_nlink > 1);

    g_free(abs);
    return whole;
}

/* Decodes one event; returns the directory whose listing it changed, or NULL. */
static const char *decode(struct dir_watches *dw, const struct inotify_event *e)
{
    const char *dir = g_hash_table_lookup(dw->by_wd, GINT_TO_POINTER(e->wd));
    const char *name = e->len ? e->name : "";

    if (dir == NULL)
        return NULL;
    if (e->mask & IN_IGNORED) { /* gone, or unwatched: its parent's events say what happened */
        forget(dw, e->wd, false);
        return NULL;
    }
    if (name[0] == '\0') /* the directory itself: only a permission change matters */
        return (e->mask & IN_ATTRIB) ? dir : NULL;
    if (e->mask & IN_ISDIR) {
        if (e->mask & (IN_MOVED_FROM | IN_DELETE)) {
            char *sub = dir[0] ? g_strdup_printf("%s/%s", dir, name) : g_strdup(name);
            forget_subtree(dw, sub); /* below dir: dir itself stays */
            g_free(sub);
        }
        return (e->mask & (IN_CREATE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE)) ? dir : NULL;
    }
    if (e->mask & (IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE))
        return dir;
    if (e->mask & IN_CREATE) {
        char *dir_abs = dir[0] ? g_build_filename(dw->root, dir, NULL) : g_strdup(dw->root);
        bool whole = complete_on_create(dir_abs, name);
        g_free(dir_abs);
        return whole ? dir : NULL;
    }
    return NULL;
}

/* Empties the queue after a (simulated) overflow: those events are lost too. */
static void drain(struct dir_watches *dw)
{
    char buf[4096];

    while (read(dw->fd, buf, sizeof buf) > 0)
        ;
}

bool dir_watches_read(struct dir_watches *dw, void (*changed)(void *data, const char *path),
                      void *data)
{
    char buf[64 * 1024] __attribute__((aligned(__alignof__(struct inotify_event))));
    ssize_t len;
    bool complete = true;

    while ((len = read(dw->fd, buf, sizeof buf)) > 0) {
        for (char *p = buf; p < buf + len;) {
            const struct inotify_event *e = (const struct inotify_event *) p;
            const char *dir;
            p += sizeof *e + e->len;
            if (e->mask & IN_Q_OVERFLOW) {
                complete = false;
                continue;
            }
            if (dw->overflow_after && ++dw->seen > dw->overflow_after) {
                dw->overflow_after = 0;
                drain(dw);
                return false;
            }
            if ((dir = decode(dw, e)) != NULL)
                changed(data, dir);
        }
    }
    return complete;
}
