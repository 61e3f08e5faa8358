/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A fresh directory's files listed again for indexing, a slice at a time (see relist.h). Reads the
 * directory only: what the walk found (scan.h) says which directory and how to order it. */
#include "relist.h"

#include "util/maildir.h"

#include <dirent.h>
#include <string.h>
#include <sys/stat.h>

static gint compare_names(gconstpointer a, gconstpointer b)
{
    return strcmp(*(char *const *) a, *(char *const *) b);
}

/* Inode order is read a slice at a time: the directory is read once for its entries' inodes, then
 * once per slice of RELIST_SLICE of them for their names. Holding the whole listing of Archive/cur's
 * 308k files (names, inodes, the arrays) cost ~14 MB of a 1M first index's peak; a pass over it
 * costs 0.1-0.15 s (its 16 passes ~2 s of a ~470 s index), and an entry is checked (ignored? a
 * regular file?) in its own slice only. */
#define RELIST_SLICE 20000

struct named_inode {
    uint64_t ino;
    const char *name;
};

struct maildex__relist {
    const struct maildex__scan *scan;
    const struct maildex__scan_dir *dir;
    char *abs;
    GArray *inodes; /* uint64_t, sorted: every entry's inode (inode order only) */
    guint slice;    /* entries a slice */
    guint next;     /* index in inodes of the next slice's first entry */
    bool done;
    bool failed;    /* a pass could not open the directory */
};

static gint compare_inodes(gconstpointer a, gconstpointer b)
{
    const struct named_inode *x = a, *y = b;
    return x->ino < y->ino ? -1 : x->ino > y->ino;
}

static gint compare_u64(gconstpointer a, gconstpointer b)
{
    uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
    return x < y ? -1 : x > y;
}

struct maildex__relist *maildex__relist_new(const struct maildex__scan *scan, const char *mail_root,
                                            const struct maildex__scan_dir *dir)
{
    struct maildex__relist *rl = g_new0(struct maildex__relist, 1);
    DIR *dh;
    struct dirent *de;

    rl->scan = scan;
    rl->dir = dir;
    rl->slice = RELIST_SLICE;
#ifdef MAILDEX_DEVELOPER
    /* Developer builds: tests read small directories in several slices. */
    if (g_getenv("MAILDEX_TEST_RELIST_SLICE"))
        rl->slice = MAX(1, (guint) g_ascii_strtoull(g_getenv("MAILDEX_TEST_RELIST_SLICE"), NULL, 10));
#endif
    rl->abs = maildex__path_join(NULL, mail_root, dir->path, NULL);
    if (!dir->was_new)
        return rl;
    if (rl->abs == NULL || (dh = opendir(rl->abs)) == NULL) {
        rl->failed = rl->done = true;
        return rl;
    }
    rl->inodes = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    while ((de = readdir(dh)) != NULL)
        if (de->d_type != DT_DIR) {
            uint64_t ino = de->d_ino;
            g_array_append_val(rl->inodes, ino);
        }
    closedir(dh);
    g_array_sort(rl->inodes, compare_u64);
    return rl;
}

bool maildex__relist_next(struct maildex__relist *rl, GStringChunk *chunk, GPtrArray *names)
{
    const struct maildex__scan_dir *dir = rl->dir;
    GArray *found;
    DIR *dh;
    struct dirent *de;
    uint64_t lo = 0, hi = UINT64_MAX;

    if (rl->done)
        return false;
    if (rl->inodes) {
        guint last;
        if (rl->next >= rl->inodes->len) {
            rl->done = true;
            return false;
        }
        /* Entries with the same inode (hard links) fall in the slice of the first of them. The last
         * slice has no upper bound: a file made since the first pass may have a larger inode. */
        last = MIN(rl->next + rl->slice, rl->inodes->len) - 1;
        lo = rl->next == 0 ? 0 : g_array_index(rl->inodes, uint64_t, rl->next - 1) + 1;
        hi = last + 1 == rl->inodes->len ? UINT64_MAX : g_array_index(rl->inodes, uint64_t, last);
        rl->next = last + 1;
    } else {
        rl->done = true; /* name order: one slice */
    }
    if (rl->abs == NULL || (dh = opendir(rl->abs)) == NULL) {
        rl->failed = true;
        return true;
    }
    found = g_array_new(FALSE, FALSE, sizeof(struct named_inode));
    while ((de = readdir(dh)) != NULL) {
        unsigned char type = de->d_type;
        if (de->d_ino < lo || de->d_ino > hi ||
            maildex__ignore_internal(&rl->scan->ignore, dir->path, de->d_name) ||
            maildex__ignored(&rl->scan->ignore, dir->path, de->d_name))
            continue;
        if (type == DT_LNK || type == DT_UNKNOWN) {
            struct stat sb;
            type = fstatat(dirfd(dh), de->d_name, &sb, 0) == 0 && S_ISREG(sb.st_mode) ? DT_REG
                                                                                     : DT_UNKNOWN;
        }
        if (type == DT_REG) {
            struct named_inode e = {(uint64_t) de->d_ino, g_string_chunk_insert(chunk, de->d_name)};
            g_array_append_val(found, e);
        }
    }
    closedir(dh);
    /* notmuch's order, so that the first copy of a duplicate is the same file: inode order in a
     * directory new to the database (g_array_sort is stable: hard links keep the listing's order),
     * name order in a known one. */
    if (rl->inodes)
        g_array_sort(found, compare_inodes);
    for (guint i = 0; i < found->len; i++)
        g_ptr_array_add(names, (gpointer) g_array_index(found, struct named_inode, i).name);
    if (!rl->inodes)
        g_ptr_array_sort(names, compare_names);
    g_array_free(found, TRUE);
    return true;
}

bool maildex__relist_failed(const struct maildex__relist *rl)
{
    return rl->failed;
}

void maildex__relist_free(struct maildex__relist *rl)
{
    if (rl == NULL)
        return;
    if (rl->inodes)
        g_array_free(rl->inodes, TRUE);
    talloc_free(rl->abs);
    g_free(rl);
}
