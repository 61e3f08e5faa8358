/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the walk found gone, asked again just before `new` acts on it (see gone.h). Never writes:
 * index.c decides what to do with the answers. */
#include "gone.h"

#include "message/renames.h"
#include "message/write.h"
#include "util/maildir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef O_PATH
#define O_PATH O_RDONLY
#endif

struct maildex__gone {
    maildex_db_t *db;
    int root;               /* the mail root as the run opened it: follows it wherever it moves */
    dev_t device;
    ino_t inode;
    GHashTable *renames;    /* "base/size" -> struct maildex__scan_removal * */
    GHashTable *bases;      /* the unique names of the walk's removals */
    GHashTable *vanished;   /* the unique names of new names that vanished before they were read */
    GHashTable *listed;     /* directory path -> its names now whose unique name is in bases
                               (base -> name), read once a run, for the removals that would stand */
    sqlite3_stmt *same_base; /* prepared at the first vanished name (rare): SAME_BASE_SQL */
    const struct maildex__scan *scan; /* the walk's, from maildex__gone_learn */
    int tree_changed;       /* maildex__gone_tree_changed's answer: -1 until asked */
    int64_t started;        /* since when changes may be unreported: the run's start, or the
                               caller's changes_since if earlier, in ns, less the lag of file
                               times (STAMP_LAG) */
};

/* File times come from the kernel's coarse clock, up to a tick (4 to 10 ms) behind the real time:
 * a change made just after the run began may carry a time just before it. */
#define STAMP_LAG 20000000

/* A file of a directory by its Maildir unique name (maildex__maildir_base_len): the name itself,
 * or it followed by fields (",U=...") or the info (":2,..."); ',' + 1 is '-' and ':' + 1 is ';'.
 * Through the (directory, name) index. */
static const char SAME_BASE_SQL[] =
    "SELECT 1 FROM files WHERE directory = ?1 AND (name = ?2 OR (name >= ?2 || ',' AND "
    "name < ?2 || '-') OR (name >= ?2 || ':' AND name < ?2 || ';')) LIMIT 1";

static char *base_of(const char *name)
{
    return g_strndup(name, maildex__maildir_base_len(name));
}

static char *rename_key(const char *name, int64_t size)
{
    return g_strdup_printf("%.*s/%" PRId64, (int) maildex__maildir_base_len(name), name, size);
}

maildex_status_t maildex__gone_open(maildex_db_t *db, const maildex_index_options_t *opts,
                                    struct maildex__gone **out)
{
    uint64_t device = opts->mail_root_device, inode = opts->mail_root_inode;
    struct maildex__gone *g;
    struct stat sb;
    struct timespec now;
    int fd = open(db->mail_root, O_PATH | O_DIRECTORY | O_CLOEXEC);

    *out = NULL;
    if (fd < 0 && (errno == ENOENT || errno == ENOTDIR))
        return maildex__error(db, MAILDEX_STATUS_FILE_NOT_FOUND, "mail root '%s' is not a directory",
                              db->mail_root);
    if (fd < 0 || fstat(fd, &sb) != 0) {
        int err = errno;
        if (fd >= 0)
            close(fd);
        return maildex__error(db, MAILDEX_STATUS_IO_ERROR, "cannot read mail root '%s': %s",
                              db->mail_root, strerror(err));
    }
    if ((device || inode) && ((uint64_t) sb.st_dev != device || (uint64_t) sb.st_ino != inode)) {
        close(fd);
        return maildex__error(db, MAILDEX_STATUS_FILE_NOT_FOUND,
                              "mail root '%s' is another directory than the one indexed (moved "
                              "away and replaced, or not mounted): nothing was changed",
                              db->mail_root);
    }
    g = g_new0(struct maildex__gone, 1);
    g->db = db;
    g->root = fd;
    g->device = sb.st_dev;
    g->inode = sb.st_ino;
    g->renames = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    g->bases = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    g->vanished = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    g->listed = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
                                      (GDestroyNotify) g_hash_table_destroy);
    g->tree_changed = -1;
    clock_gettime(CLOCK_REALTIME, &now);
    g->started = (int64_t) now.tv_sec * 1000000000 + now.tv_nsec - STAMP_LAG;
    if (opts->changes_since && (int64_t) opts->changes_since - STAMP_LAG < g->started)
        g->started = (int64_t) opts->changes_since - STAMP_LAG;
    *out = g;
    return MAILDEX_STATUS_OK;
}

void maildex__gone_free(struct maildex__gone *g)
{
    if (g == NULL)
        return;
    close(g->root);
    sqlite3_finalize(g->same_base);
    g_hash_table_destroy(g->renames);
    g_hash_table_destroy(g->bases);
    g_hash_table_destroy(g->vanished);
    g_hash_table_destroy(g->listed);
    g_free(g);
}

void maildex__gone_learn(struct maildex__gone *g, struct maildex__scan *scan)
{
    GArray *removals = scan->removals;

    g->scan = scan;
    for (guint i = 0; i < removals->len; i++) {
        struct maildex__scan_removal *rm = &g_array_index(removals, struct maildex__scan_removal, i);
        g_hash_table_insert(g->renames, rename_key(rm->name, rm->size), rm);
        g_hash_table_add(g->bases, base_of(rm->name));
    }
}

struct maildex__scan_removal *maildex__gone_renamed(struct maildex__gone *g, const char *path,
                                                    const char *name)
{
    struct maildex__scan_removal *rm;
    struct stat sb;
    char *key;

    if (g_hash_table_size(g->renames) == 0 || stat(path, &sb) != 0)
        return NULL;
    key = rename_key(name, sb.st_size);
    rm = g_hash_table_lookup(g->renames, key);
    g_free(key);
    return rm && !rm->done ? rm : NULL;
}

maildex_status_t maildex__gone_still(struct maildex__gone *g, const struct maildex__scan_removal *rm,
                                     bool *gone)
{
    int64_t id = 0;
    bool owed = false;
    struct stat sb;
    char *rel;
    int rc, err;
    maildex_status_t st = maildex__store_file_find(g->db, rm->dir_id, rm->name, &id);

    *gone = false;
    if (st == MAILDEX_STATUS_OK && id == rm->file_id)
        st = maildex__renames_owed_to(g->db, rm->file_id, &owed);
    if (st != MAILDEX_STATUS_OK || id != rm->file_id || owed)
        return st;
    rel = rm->dir_path[0] ? g_strdup_printf("%s/%s", rm->dir_path, rm->name) : g_strdup(rm->name);
    rc = fstatat(g->root, rel, &sb, AT_SYMLINK_NOFOLLOW);
    err = errno;
    g_free(rel);
    *gone = rc != 0 && (err == ENOENT || err == ENOTDIR);
    return MAILDEX_STATUS_OK;
}

/* The names in a directory now whose unique name is that of a removal (base -> name), read with
 * one listing the first time a removal there is asked about: memory follows the removals, not the
 * folder. A directory that cannot be listed has none (its removals stand as they did). */
static GHashTable *names_now(struct maildex__gone *g, const char *dir_path)
{
    GHashTable *names = g_hash_table_lookup(g->listed, dir_path);
    int fd;
    DIR *dh = NULL;
    struct dirent *de;

    if (names)
        return names;
    names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    g_hash_table_insert(g->listed, g_strdup(dir_path), names);
    fd = openat(g->root, dir_path[0] ? dir_path : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0 && (dh = fdopendir(fd)) == NULL)
        close(fd);
    while (dh && (de = readdir(dh)) != NULL) {
        char *base = base_of(de->d_name);
        if (g_hash_table_contains(g->bases, base) && !g_hash_table_contains(names, base))
            g_hash_table_insert(names, base, g_strdup(de->d_name));
        else
            g_free(base);
    }
    if (dh)
        closedir(dh);
    return names;
}

/* Whether directory dir_path (row dir_id, 0 for none) holds a name with this unique name that the
 * index does not know: the file renamed, at a name the walk's listing did not see. */
static maildex_status_t unknown_name(struct maildex__gone *g, int64_t dir_id, const char *dir_path,
                                     const char *base, bool *found)
{
    const char *name = g_hash_table_lookup(names_now(g, dir_path), base);
    int64_t id = 0;
    maildex_status_t st = MAILDEX_STATUS_OK;

    if (name && dir_id)
        st = maildex__store_file_find(g->db, dir_id, name, &id);
    *found = name && st == MAILDEX_STATUS_OK && id == 0;
    return st;
}

/* A file gone from a listed directory while the directory or its Maildir sibling (cur/ for new/, new/
 * for cur/) holds its unique name under a name the index does not know: readdir, racing a rename
 * (a sync tool's: `tag` renames under the write lock), saw neither name. The row stays; the next
 * listing finds the rename. */
static maildex_status_t missed_rename(struct maildex__gone *g, const struct maildex__scan_removal *rm,
                                      bool *missed)
{
    char *base = base_of(rm->name);
    size_t len = strlen(rm->dir_path);
    int64_t sibling_id = 0;
    bool is_new;
    maildex_status_t st = unknown_name(g, rm->dir_id, rm->dir_path, base, missed);

    if (st == MAILDEX_STATUS_OK && !*missed && maildex__maildir_is_leaf(rm->dir_path, &is_new)) {
        char *sibling = g_strdup_printf("%.*s%s", (int) (len - 3), rm->dir_path,
                                        is_new ? "cur" : "new");
        st = maildex__lookup_id(g->db, MAILDEX__STMT_DIR_FIND, sibling, &sibling_id);
        if (st == MAILDEX_STATUS_OK)
            st = unknown_name(g, sibling_id, sibling, base, missed);
        g_free(sibling);
    }
    g_free(base);
    return st;
}

maildex_status_t maildex__gone_stands(struct maildex__gone *g, const struct maildex__scan_removal *rm,
                                      bool *gone)
{
    bool missed = false;
    maildex_status_t st = maildex__gone_still(g, rm, gone);

    if (st == MAILDEX_STATUS_OK && *gone && rm->dir)
        st = missed_rename(g, rm, &missed);
    *gone = *gone && !missed && st == MAILDEX_STATUS_OK;
    return st;
}

/* Whether the directory has a row with this unique name: a listing made while a file is renamed
 * may hold both of its names (readdir's order is not the directory's at one moment). */
static bool known_in_dir(struct maildex__gone *g, int64_t dir_id, const char *base)
{
    bool known = false;

    if (g->same_base == NULL &&
        sqlite3_prepare_v3(g->db->sql, SAME_BASE_SQL, -1, 0, &g->same_base, NULL) != SQLITE_OK) {
        sqlite3_finalize(g->same_base);
        g->same_base = NULL;
        return false;
    }
    sqlite3_bind_int64(g->same_base, 1, dir_id);
    sqlite3_bind_text(g->same_base, 2, base, -1, SQLITE_STATIC);
    known = sqlite3_step(g->same_base) == SQLITE_ROW;
    sqlite3_reset(g->same_base);
    sqlite3_clear_bindings(g->same_base);
    return known;
}

/* Whether directory dir_path holds another name with this unique name now. */
static bool renamed_in(const struct maildex__gone *g, const char *dir_path, const char *base,
                       const char *name)
{
    int fd = openat(g->root, dir_path[0] ? dir_path : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *dh = fd >= 0 ? fdopendir(fd) : NULL;
    struct dirent *de;
    bool found = false;

    if (fd >= 0 && dh == NULL)
        close(fd);
    while (dh && !found && (de = readdir(dh)) != NULL)
        found = strcmp(de->d_name, name) != 0 && maildex__maildir_base_len(de->d_name) == strlen(base) &&
                strncmp(de->d_name, base, strlen(base)) == 0;
    if (dh)
        closedir(dh);
    return found;
}

/* Whether a new name that vanished is now in its directory or its Maildir sibling under another
 * name with the same unique name: mail the index never read, renamed (a sync tool moving it from
 * new/ to cur/ with ":2," added) between the walk and the read. Lists the two directories: rare. */
static bool renamed_nearby(const struct maildex__gone *g, const char *dir_path, const char *base,
                           const char *name)
{
    size_t len = strlen(dir_path);
    bool is_new, found = renamed_in(g, dir_path, base, name);

    if (!found && maildex__maildir_is_leaf(dir_path, &is_new)) {
        char *sibling = g_strdup_printf("%.*s%s", (int) (len - 3), dir_path, is_new ? "cur" : "new");
        found = renamed_in(g, sibling, base, name);
        g_free(sibling);
    }
    return found;
}

bool maildex__gone_vanished(struct maildex__gone *g, int64_t dir_id, const char *dir_path,
                            const char *name)
{
    char *base = base_of(name);
    bool known = g_hash_table_contains(g->bases, base) || known_in_dir(g, dir_id, base) ||
                 renamed_nearby(g, dir_path, base, name);

    g_hash_table_add(g->vanished, base);
    return known;
}

bool maildex__gone_moving(const struct maildex__gone *g, const struct maildex__scan_removal *rm)
{
    char *base;
    bool moving;

    if (g_hash_table_size(g->vanished) == 0)
        return false;
    base = base_of(rm->name);
    moving = g_hash_table_contains(g->vanished, base);
    g_free(base);
    return moving;
}

bool maildex__gone_root_moved(const struct maildex__gone *g)
{
    struct stat sb;

    return stat(g->db->mail_root, &sb) != 0 || sb.st_dev != g->device || sb.st_ino != g->inode;
}

/* The mtime of the directory at path (relative to the mail root) in nanoseconds; INT64_MAX for one
 * that cannot be stat'ed (it has changed: it may be where the mail went). */
static int64_t dir_mtime(const struct maildex__gone *g, const char *path)
{
    struct stat sb;

    if (fstatat(g->root, path[0] ? path : ".", &sb, 0) != 0)
        return INT64_MAX;
    return (int64_t) sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec;
}

/* Whether a directory outside the walk (a `watch` round walks only the directories its events
 * named) has changes no run has read: it changed after this run began, or its mtime is not the one
 * recorded when it was last listed (a change made while the round waited for another writer; 0,
 * recorded for a directory listed in the second of its mtime, says nothing). */
static bool outside_changed(const struct maildex__gone *g, const char *path, int64_t recorded)
{
    int64_t now = dir_mtime(g, path);

    return now >= g->started || (recorded != 0 && now != recorded);
}

/* Every directory the index knows: those the walk stat'ed against the mtime it saw, the others as
 * outside_changed says. */
static bool any_dir_changed(struct maildex__gone *g)
{
    static const char sql[] = "SELECT path, mtime FROM directories";
    GHashTable *walked = g_hash_table_new(g_str_hash, g_str_equal);
    sqlite3_stmt *stmt = NULL;
    bool changed = false;

    for (guint i = 0; g->scan && i < g->scan->dirs->len && !changed; i++) {
        const struct maildex__scan_dir *d = g->scan->dirs->pdata[i];
        g_hash_table_add(walked, d->path);
        /* id -1: gone, or skipped (a symlink loop); unreadable: the walk acts on those itself */
        if (d->id >= 0 && !d->unreadable)
            changed = dir_mtime(g, d->path) != d->fs_mtime;
    }
    for (guint i = 0; g->scan && i < g->scan->removed_dirs->len; i++)
        g_hash_table_add(walked, (char *) g_array_index(g->scan->removed_dirs, struct maildex__scan_gone_dir,
                                                        i).path);
    if (!changed && sqlite3_prepare_v3(g->db->sql, sql, -1, 0, &stmt, NULL) != SQLITE_OK)
        changed = true; /* cannot tell: hold, as for a directory that cannot be read */
    while (!changed && stmt && sqlite3_step(stmt) == SQLITE_ROW) {
        const char *path = (const char *) sqlite3_column_text(stmt, 0);
        if (path && !g_hash_table_contains(walked, path))
            changed = outside_changed(g, path, sqlite3_column_int64(stmt, 1));
    }
    sqlite3_finalize(stmt);
    g_hash_table_destroy(walked);
    return changed;
}

bool maildex__gone_tree_changed(struct maildex__gone *g)
{
    if (g->tree_changed < 0)
        g->tree_changed = any_dir_changed(g);
    return g->tree_changed;
}
