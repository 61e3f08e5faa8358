/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The file-system half of maildex_purge (see purge-files.h): directories opened from the mail root
 * without following a link out of it, files removed or moved by name relative to them, and the
 * directories synced before purge.c lets a row go. It must not touch anything it reached through a
 * link whose target lies outside the root, and it never replaces a file. */
#include "purge-files.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <talloc.h>
#include <unistd.h>

/* Links followed on the way to one directory, at most (each is resolved whole by realpath). */
#define MAX_LINKS 16
/* Names tried in the target when the file's own is taken there. */
#define MAX_RENAMES 100

struct dir {
    int fd; /* -1: err says why */
    int err;
    bool touched; /* a removal or move changed it since the last sync */
};

struct maildex__purge_fs {
    int root_fd;
    char *root;      /* as given */
    char *real_root; /* realpath(root), or NULL */
    GHashTable *dirs; /* path relative to the root -> struct dir */
    char *target;     /* the target folder, once maildex__purge_fs_target made it */
};

static void dir_free(gpointer p)
{
    struct dir *d = p;

    if (d->fd >= 0)
        close(d->fd);
    g_free(d);
}

static int fs_destructor(struct maildex__purge_fs *fs)
{
    if (fs->dirs)
        g_hash_table_destroy(fs->dirs);
    if (fs->root_fd >= 0)
        close(fs->root_fd);
    free(fs->real_root);
    return 0;
}

struct maildex__purge_fs *maildex__purge_fs_open(void *ctx, const char *root)
{
    struct maildex__purge_fs *fs = talloc_zero(ctx, struct maildex__purge_fs);
    int err;

    if (fs == NULL) {
        errno = ENOMEM;
        return NULL;
    }
    fs->root_fd = -1;
    talloc_set_destructor(fs, fs_destructor);
    fs->root = talloc_strdup(fs, root);
    fs->dirs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, dir_free);
    fs->root_fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    fs->real_root = realpath(root, NULL);
    if (fs->root_fd < 0 || fs->real_root == NULL || fs->root == NULL) {
        err = fs->root == NULL ? ENOMEM : errno;
        talloc_free(fs);
        errno = err;
        return NULL;
    }
    return fs;
}

static bool is_link(int dirfd, const char *name)
{
    struct stat sb;

    return fstatat(dirfd, name, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(sb.st_mode);
}

/* The link parts[0..i] (below the root) resolved, with parts[i+1..] after it: the path relative to
 * the root it stands for, or NULL when its target is outside the root or cannot be resolved. */
static char *link_inside(struct maildex__purge_fs *fs, gchar **parts, int i)
{
    GString *path = g_string_new(fs->root), *rel = g_string_new("");
    size_t n = strlen(fs->real_root);
    char *real, *out = NULL;

    for (int k = 0; k <= i; k++)
        g_string_append_printf(path, "/%s", parts[k]);
    real = realpath(path->str, NULL);
    if (real && strncmp(real, fs->real_root, n) == 0 && (real[n] == '\0' || real[n] == '/')) {
        g_string_append(rel, real[n] ? real + n + 1 : "");
        for (int k = i + 1; parts[k]; k++)
            g_string_append_printf(rel, "%s%s", rel->len ? "/" : "", parts[k]);
        out = g_strdup(rel->str);
    }
    free(real);
    g_string_free(path, TRUE);
    g_string_free(rel, TRUE);
    return out;
}

/* The next component name below fd, creating it (0700, synced in fd) when create says so. */
static int open_component(int fd, const char *name, bool create)
{
    const int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
    int next = openat(fd, name, flags);

    if (next < 0 && errno == ENOENT && create) {
        if (mkdirat(fd, name, 0700) != 0 && errno != EEXIST)
            return -1;
        if (fsync(fd) != 0)
            return -1;
        next = openat(fd, name, flags);
    }
    return next;
}

/* rel opened below the root as purge-files.h says; -1 with *err set when it cannot be. */
static int open_inside(struct maildex__purge_fs *fs, const char *rel, bool create, int links, int *err)
{
    gchar **parts = g_strsplit(rel, "/", -1);
    int fd = openat(fs->root_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

    *err = fd < 0 ? errno : 0;
    for (int i = 0; fd >= 0 && parts[i]; i++) {
        int next = -1, e = ELOOP; /* no stored path has a "..": none may climb out */
        if (*parts[i] == '\0' || strcmp(parts[i], ".") == 0)
            continue;
        if (strcmp(parts[i], "..") != 0) {
            next = open_component(fd, parts[i], create);
            e = errno;
        }
        if (next < 0 && (e == ELOOP || e == ENOTDIR) && is_link(fd, parts[i])) {
            char *inside = links < MAX_LINKS ? link_inside(fs, parts, i) : NULL;
            close(fd);
            fd = inside ? open_inside(fs, inside, create, links + 1, err) : -1;
            if (inside == NULL)
                *err = ELOOP;
            g_free(inside);
            break;
        }
        if (next < 0)
            *err = e;
        close(fd);
        fd = next;
    }
    g_strfreev(parts);
    return fd;
}

static struct dir *cached_dir(struct maildex__purge_fs *fs, const char *rel, bool create)
{
    struct dir *d = g_hash_table_lookup(fs->dirs, rel);

    if (d == NULL || (create && d->fd < 0)) {
        d = g_new0(struct dir, 1);
        d->fd = open_inside(fs, rel, create, 0, &d->err);
        g_hash_table_replace(fs->dirs, g_strdup(rel), d);
    }
    return d;
}

int maildex__purge_fs_dir(struct maildex__purge_fs *fs, const char *dir, int *err)
{
    struct dir *d = cached_dir(fs, dir, false);

    *err = d->err;
    return d->fd;
}

int maildex__purge_fs_size(int dirfd, const char *name, uint64_t *size)
{
    struct stat sb;

    if (fstatat(dirfd, name, &sb, AT_SYMLINK_NOFOLLOW) != 0)
        return errno;
    *size = (uint64_t) sb.st_size;
    return 0;
}

int maildex__purge_fs_remove(struct maildex__purge_fs *fs, const char *dir, const char *name)
{
    struct dir *d = cached_dir(fs, dir, false);

    if (d->fd < 0)
        return d->err;
    if (unlinkat(d->fd, name, 0) != 0)
        return errno;
    d->touched = true;
    return 0;
}

int maildex__purge_fs_target(struct maildex__purge_fs *fs, const char *folder)
{
    static const char *const leaves[] = {"", "/cur", "/new", "/tmp"};
    char *path;
    int err = 0;

    for (size_t i = 0; i < G_N_ELEMENTS(leaves) && err == 0; i++) {
        path = g_strconcat(folder, leaves[i], NULL);
        err = cached_dir(fs, path, true)->err;
        g_free(path);
    }
    if (err == 0)
        fs->target = talloc_strdup(fs, folder);
    return err ? err : fs->target ? 0 : ENOMEM;
}

char *maildex__purge_target_name(void *ctx, const char *name)
{
    const char *colon = strchr(name, ':');
    size_t unique = colon ? (size_t) (colon - name) : strlen(name);
    const char *uid = g_strstr_len(name, (gssize) unique, ",U=");
    size_t digits;

    if (uid == NULL)
        return talloc_strdup(ctx, name);
    digits = strspn(uid + 3, "0123456789");
    return talloc_asprintf(ctx, "%.*s%s", (int) (uid - name), name, uid + 3 + digits);
}

/* The nth name to try: the name itself, then ".n" after its unique part. */
static char *candidate(void *ctx, const char *name, int n)
{
    const char *colon = strchr(name, ':');

    if (n == 0)
        return talloc_strdup(ctx, name);
    if (colon == NULL)
        return talloc_asprintf(ctx, "%s.%d", name, n);
    return talloc_asprintf(ctx, "%.*s.%d%s", (int) (colon - name), name, n, colon);
}

/* from/name to to/to_name, never replacing to_name: 0 or an errno value. */
static int move_noreplace(int from, const char *name, int to, const char *to_name)
{
    if (renameat2(from, name, to, to_name, RENAME_NOREPLACE) == 0)
        return 0;
    if (errno != EINVAL && errno != ENOSYS)
        return errno;
    /* A file system without RENAME_NOREPLACE: a link refuses an existing name the same way. */
    if (linkat(from, name, to, to_name, 0) != 0)
        return errno;
    if (unlinkat(from, name, 0) != 0) {
        int err = errno;
        unlinkat(to, to_name, 0);
        return err;
    }
    return 0;
}

int maildex__purge_fs_move(struct maildex__purge_fs *fs, void *ctx, const char *dir, const char *name,
                           bool to_new, char **to_name)
{
    struct dir *from = cached_dir(fs, dir, false), *to;
    char *leaf = fs->target ? g_strconcat(fs->target, to_new ? "/new" : "/cur", NULL) : NULL;
    char *base = maildex__purge_target_name(ctx, name);
    int err = EEXIST;

    *to_name = NULL;
    if (leaf == NULL || base == NULL) {
        g_free(leaf);
        return ENOMEM;
    }
    to = cached_dir(fs, leaf, false);
    g_free(leaf);
    if (from->fd < 0 || to->fd < 0)
        return from->fd < 0 ? from->err : to->err;
    for (int n = 0; n < MAX_RENAMES && err == EEXIST; n++) {
        char *try = candidate(ctx, base, n);
        if (try == NULL)
            return ENOMEM;
        err = move_noreplace(from->fd, name, to->fd, try);
        if (err == 0)
            *to_name = try;
        else
            talloc_free(try);
    }
    if (err == 0)
        from->touched = to->touched = true;
    return err;
}

int maildex__purge_fs_sync(struct maildex__purge_fs *fs)
{
    GHashTableIter it;
    gpointer value;
    int err = 0;

    g_hash_table_iter_init(&it, fs->dirs);
    while (g_hash_table_iter_next(&it, NULL, &value)) {
        struct dir *d = value;
        if (d->touched && fsync(d->fd) != 0 && err == 0)
            err = errno;
        d->touched = false;
    }
    return err;
}
