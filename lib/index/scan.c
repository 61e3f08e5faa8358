/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Phase one of `new`: the walk (see scan.h). Reads the database and the directory tree, writes
 * nothing, opens no mail file. */
#include "scan.h"

#include "util/maildir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct walk {
    maildex_db_t *db;
    const struct maildex__scan_options *opts;
    struct maildex__scan *scan;
    GHashTable *visited;  /* "dev:ino" of directories walked: symlink loops end here */
    maildex_status_t st;
};

static void warn(struct walk *w, const char *dir, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void warn(struct walk *w, const char *dir, const char *name, const char *fmt, ...)
{
    char *path = maildex__path_join(NULL, w->db->mail_root, dir, name);
    char *reason;
    va_list ap;

    va_start(ap, fmt);
    reason = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    w->scan->warnings++;
    if (w->opts->warning)
        w->opts->warning(w->opts->data, path ? path : name, reason);
    g_free(reason);
    talloc_free(path);
}

/* Tells the host one decision (maildex_index_event_t) about dir/name. */
static void event(struct walk *w, maildex_index_event_kind_t kind, const char *dir, const char *name,
                  bool sorts_last, bool listed)
{
    char *path;
    maildex_index_event_t e = {kind, NULL, sorts_last, listed};

    if (w->opts->event == NULL)
        return;
    path = maildex__path_join(NULL, w->db->mail_root, dir, name);
    e.path = path ? path : name;
    w->opts->event(w->opts->data, &e);
    talloc_free(path);
}

static char *child_path(const char *dir, const char *name)
{
    return dir[0] ? g_strdup_printf("%s/%s", dir, name) : g_strdup(name);
}

static const char *kind_of(mode_t mode)
{
    if (S_ISFIFO(mode))
        return "not a regular file (a FIFO); skipped";
    if (S_ISSOCK(mode))
        return "not a regular file (a socket); skipped";
    if (S_ISCHR(mode) || S_ISBLK(mode))
        return "not a regular file (a device); skipped";
    return "not a regular file; skipped";
}

static int64_t mtime_ns(const struct stat *sb)
{
    return (int64_t) sb->st_mtim.tv_sec * 1000000000 + sb->st_mtim.tv_nsec;
}

static struct maildex__scan_dir *add_dir(struct walk *w, const char *path, int64_t parent)
{
    struct maildex__scan_dir *d = g_new0(struct maildex__scan_dir, 1);
    d->path = g_string_chunk_insert(w->scan->names, path);
    d->parent = parent;
    g_ptr_array_add(w->scan->dirs, d);
    return d;
}

/* Reads the database's row for a directory: id, recorded mtime. */
static void find_dir(struct walk *w, struct maildex__scan_dir *d, int64_t *db_mtime)
{
    sqlite3_stmt *stmt;
    bool row;

    *db_mtime = -1;
    if (w->st || (w->st = maildex__stmt(w->db, MAILDEX__STMT_DIR_FIND, &stmt)))
        return;
    sqlite3_bind_text(stmt, 1, d->path, -1, SQLITE_STATIC);
    w->st = maildex__step_row(w->db, stmt, &row, "cannot read directories");
    if (w->st == MAILDEX_STATUS_OK && row) {
        d->id = sqlite3_column_int64(stmt, 0);
        *db_mtime = sqlite3_column_int64(stmt, 1);
        d->folder = sqlite3_column_int64(stmt, 2);
    }
    sqlite3_reset(stmt);
}

static void add_removal(struct walk *w, struct maildex__scan_dir *dir, int64_t dir_id,
                        const char *dir_path, int64_t file_id, const char *name);

/* Every file of a directory gone from disk (ENOENT: never one that only failed to open) is removed,
 * and so are its subdirectories. */
static void remove_dir_tree(struct walk *w, int64_t dir_id, const char *dir_path)
{
    GArray *stack = g_array_new(FALSE, FALSE, sizeof(struct maildex__scan_gone_dir));
    struct maildex__scan_gone_dir top = {dir_id, g_string_chunk_insert(w->scan->names, dir_path)};
    sqlite3_stmt *stmt;
    bool row;

    g_array_append_val(stack, top);
    while (stack->len && w->st == MAILDEX_STATUS_OK) {
        top = g_array_index(stack, struct maildex__scan_gone_dir, stack->len - 1);
        g_array_set_size(stack, stack->len - 1);
        g_array_append_val(w->scan->removed_dirs, top);
        if ((w->st = maildex__stmt(w->db, MAILDEX__STMT_DIR_FILES, &stmt)))
            break;
        sqlite3_bind_int64(stmt, 1, top.id);
        while (!(w->st = maildex__step_row(w->db, stmt, &row, "cannot read files")) && row)
            add_removal(w, NULL, top.id, top.path, sqlite3_column_int64(stmt, 0),
                        (const char *) sqlite3_column_text(stmt, 1));
        sqlite3_reset(stmt);
        if (w->st || (w->st = maildex__stmt(w->db, MAILDEX__STMT_DIR_CHILDREN, &stmt)))
            break;
        sqlite3_bind_int64(stmt, 1, top.id);
        while (!(w->st = maildex__step_row(w->db, stmt, &row, "cannot read directories")) && row) {
            struct maildex__scan_gone_dir child = {sqlite3_column_int64(stmt, 0),
                                     g_string_chunk_insert(w->scan->names,
                                                           (const char *) sqlite3_column_text(stmt, 1))};
            g_array_append_val(stack, child);
        }
        sqlite3_reset(stmt);
    }
    g_array_free(stack, TRUE);
}

/* A file the database has and the listing lacks: a removal, or half of a rename. Its size (the other
 * half of the rename key) is read only now, so the diff itself reads nothing but the covering
 * (directory, name) index. */
static void add_removal(struct walk *w, struct maildex__scan_dir *dir, int64_t dir_id,
                        const char *dir_path, int64_t file_id, const char *name)
{
    struct maildex__scan_removal r = {file_id, dir, dir_id, dir_path,
                                      g_string_chunk_insert(w->scan->names, name), 0, false};

    if (w->st || (w->st = maildex__lookup_int(w->db, MAILDEX__STMT_FILE_SIZE, file_id, &r.size)))
        return;
    g_array_append_val(w->scan->removals, r);
}

static GHashTable *known_subdirs(struct walk *w, int64_t dir_id)
{
    GHashTable *known = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    sqlite3_stmt *stmt;
    bool row;

    if (w->st || dir_id == 0 || (w->st = maildex__stmt(w->db, MAILDEX__STMT_DIR_CHILDREN, &stmt)))
        return known;
    sqlite3_bind_int64(stmt, 1, dir_id);
    while (!(w->st = maildex__step_row(w->db, stmt, &row, "cannot read directories")) && row) {
        int64_t *id = g_new(int64_t, 1);
        *id = sqlite3_column_int64(stmt, 0);
        g_hash_table_insert(known, g_strdup((const char *) sqlite3_column_text(stmt, 1)), id);
    }
    sqlite3_reset(stmt);
    return known;
}

struct entry {
    char *name;
    bool is_dir;
    bool unknown; /* present, but what it is could not be found out: a known file or directory of
                     this name is kept, nothing of this name is added */
};

static gint compare_entries(gconstpointer a, gconstpointer b)
{
    return strcmp(((const struct entry *) a)->name, ((const struct entry *) b)->name);
}

/* A symbolic link whose target does not exist. notmuch stops the whole run at one, so as not to
 * lose the mail of a disk that is not mounted; here what the database knows by its name is kept
 * (struct entry's unknown) and the run holds back removals, as for an entry it cannot read. */
static void dangling(struct walk *w, const char *dir, const char *name)
{
    w->scan->dangling++;
    if (w->opts->event)
        event(w, MAILDEX_INDEX_DANGLING, dir, name, false, true);
    else
        warn(w, dir, name, "dangling symlink; what the index knows of it is kept");
}

/* What a directory entry is; *type is DT_DIR, DT_REG, something else to skip with a warning, or
 * DT_UNKNOWN for an entry that exists but cannot be stat'ed, or a dangling symlink (kept, see struct
 * entry). Returns false for an entry to skip (after its warning, if any). */
static bool entry_type(struct walk *w, DIR *dh, const char *dir, const char *name, unsigned char *type)
{
    struct stat sb;

    if (*type != DT_LNK && *type != DT_UNKNOWN)
        return true;
    if (fstatat(dirfd(dh), name, &sb, 0) != 0) {
        if (errno == ELOOP) {
            warn(w, dir, name, "symlink loop; skipped");
            return false;
        }
        if (errno == ENOENT) {
            /* Without d_type the entry may as well have gone since readdir: then it is not here. */
            if (fstatat(dirfd(dh), name, &sb, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISLNK(sb.st_mode))
                return false;
            dangling(w, dir, name);
            *type = DT_UNKNOWN;
            return true;
        }
        w->scan->unreadable_entries++;
        warn(w, dir, name, "cannot stat: %s; kept as it is", strerror(errno));
        *type = DT_UNKNOWN;
        return true;
    }
    *type = S_ISDIR(sb.st_mode) ? DT_DIR : S_ISREG(sb.st_mode) ? DT_REG : DT_FIFO;
    if (*type == DT_FIFO) {
        warn(w, dir, name, "%s", kind_of(sb.st_mode));
        return false;
    }
    return true;
}

/* Lists a directory: regular files and subdirectories not ignored, with a warning for anything
 * else. An ignored entry is told as an event and never stat'ed, so an ignored dangling symlink costs
 * nothing. With count_files, regular files are only counted, not kept: a directory new to the
 * database is listed again, in inode order, when its files are indexed (maildex__scan_relist), and
 * keeping every name of a first index until the end cost ~60 MB at 1M messages. *last is the
 * greatest name not ignored, kept or not (NULL for none). Returns NULL with errno set when the
 * directory cannot be opened or read to the end: a partial listing would look like removals. */
static GArray *list_dir(struct walk *w, const char *dir, const char *abs, bool *is_maildir,
                        uint64_t *count_files, const char **last)
{
    GArray *entries;
    GString *greatest;
    DIR *dh = opendir(abs);
    struct dirent *de;
    bool in_leaf, leaf_is_new, any = false;
    int err;

    *is_maildir = false;
    *last = NULL;
    if (dh == NULL)
        return NULL;
    entries = g_array_new(FALSE, FALSE, sizeof(struct entry));
    greatest = g_string_new(NULL);
    in_leaf = maildex__maildir_is_leaf(dir, &leaf_is_new);
    while ((errno = 0, de = readdir(dh)) != NULL) {
        struct entry e = {0};
        unsigned char type = de->d_type;
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        if (maildex__ignored(&w->scan->ignore, dir, de->d_name)) {
            event(w, MAILDEX_INDEX_IGNORED, dir, de->d_name, false, true);
            continue;
        }
        if (!any || strcmp(de->d_name, greatest->str) > 0)
            g_string_assign(greatest, de->d_name);
        any = true;
        if (maildex__ignore_internal(&w->scan->ignore, dir, de->d_name) ||
            !entry_type(w, dh, dir, de->d_name, &type))
            continue;
        if (type == DT_DIR) {
            if (strcmp(de->d_name, "cur") == 0 || strcmp(de->d_name, "new") == 0)
                *is_maildir = true;
            if (in_leaf) {
                warn(w, dir, de->d_name, "a directory inside a Maildir's cur/ or new/; skipped");
                continue;
            }
            e.is_dir = true;
        } else if (type == DT_UNKNOWN) {
            e.unknown = true;
        } else if (type != DT_REG) {
            warn(w, dir, de->d_name, "%s",
                 type == DT_FIFO  ? "not a regular file (a FIFO); skipped"
                 : type == DT_SOCK ? "not a regular file (a socket); skipped"
                                   : "not a regular file (a device); skipped");
            continue;
        } else if (count_files) {
            ++*count_files;
            continue;
        }
        e.name = g_string_chunk_insert(w->scan->names, de->d_name);
        g_array_append_val(entries, e);
    }
    err = errno;
    closedir(dh);
    if (any && err == 0)
        *last = g_string_chunk_insert(w->scan->names, greatest->str);
    g_string_free(greatest, TRUE);
    if (err != 0) {
        g_array_free(entries, TRUE);
        errno = err;
        return NULL;
    }
    g_array_sort(entries, compare_entries); /* the same order on every machine: stable thread ids */
    return entries;
}

/* Steps the database's name-ordered file list of a directory; *name is NULL at its end. */
static void next_known(struct walk *w, sqlite3_stmt *stmt, const char **name)
{
    bool row = false;

    *name = NULL;
    if (stmt && !w->st && !(w->st = maildex__step_row(w->db, stmt, &row, "cannot read files")) && row)
        *name = (const char *) sqlite3_column_text(stmt, 1);
}

/* A directory that exists but cannot be read: one warning, and nothing under it changes this run
 * (its files and subdirectories keep their rows; it is listed again next time). */
static void unreadable(struct walk *w, struct maildex__scan_dir *d, const char *what, int err)
{
    d->unreadable = true;
    w->scan->unreadable_dirs++;
    warn(w, d->path, NULL, "cannot %s directory: %s; what the index knows of it is kept", what,
         strerror(err));
}

/* Whether a name gone from a listing sorts after every name left in it (last). */
static bool sorts_last(const char *name, const char *last)
{
    const char *base = strrchr(name, '/');
    return last == NULL || strcmp(base ? base + 1 : name, last) > 0;
}

static void file_gone(struct walk *w, struct maildex__scan_dir *d, int64_t file_id, const char *name,
                      const char *last)
{
    event(w, MAILDEX_INDEX_FILE_GONE, d->path, name, sorts_last(name, last), true);
    add_removal(w, d, d->id, d->path, file_id, name);
}

/* A directory gone from disk: its whole subtree removed, and one event for it when files were under
 * it (one that held none is only a row of ours, which notmuch never had). path is relative to the
 * mail root. */
static void dir_gone(struct walk *w, const char *path, int64_t dir_id, bool last)
{
    guint before = w->scan->removals->len;

    remove_dir_tree(w, dir_id, path);
    if (w->scan->removals->len > before)
        event(w, MAILDEX_INDEX_DIR_GONE, path, NULL, last, true);
}

/* The known subdirectories (path -> id) a listing lacked, in name order as notmuch reports them. */
static void subdirs_gone(struct walk *w, GHashTable *subdirs, const char *last)
{
    GList *paths = g_list_sort(g_hash_table_get_keys(subdirs), (GCompareFunc) strcmp);

    for (GList *p = paths; p && w->st == MAILDEX_STATUS_OK; p = p->next)
        dir_gone(w, p->data, *(int64_t *) g_hash_table_lookup(subdirs, p->data),
                 sorts_last(p->data, last));
    g_list_free(paths);
}

/* A changed (or new) directory: list it, diff files against the database, queue subdirectories.
 * The listing and the database's files are both in byte order of name, so the diff is one merge:
 * no per-file allocation or hashing for the tens of thousands of files a big folder keeps. */
static void walk_listed(struct walk *w, struct maildex__scan_dir *d, int64_t index, const char *abs)
{
    bool is_maildir;
    uint64_t new_files = 0;
    const char *last;
    GArray *entries = list_dir(w, d->path, abs, &is_maildir, d->id == 0 ? &new_files : NULL, &last);
    GHashTable *subdirs;
    sqlite3_stmt *stmt = NULL;
    const char *known = NULL;
    uint64_t found_before = w->scan->files_found;

    if (entries == NULL) {
        unreadable(w, d, "read", errno);
        return;
    }
    subdirs = known_subdirs(w, d->id);
    if (d->id != 0 && !w->st && !(w->st = maildex__stmt(w->db, MAILDEX__STMT_DIR_FILES, &stmt)))
        sqlite3_bind_int64(stmt, 1, d->id);
    next_known(w, stmt, &known);
    d->fresh = known == NULL;
    d->listed = true;
    w->scan->listed++;
    for (guint i = 0; i < entries->len && w->st == MAILDEX_STATUS_OK; i++) {
        struct entry *e = &g_array_index(entries, struct entry, i);
        int cmp = 1;
        if (e->is_dir && is_maildir && strcmp(e->name, "tmp") == 0)
            continue;
        /* Listed again next run until it can be made out: while it stands, removals are held, and
         * a run that skipped this directory would not know to hold them. */
        if (e->unknown)
            d->record_mtime = false;
        if (e->is_dir || e->unknown) {
            char *path = child_path(d->path, e->name);
            g_hash_table_remove(subdirs, path);
            if (e->is_dir)
                add_dir(w, path, index);
            g_free(path);
            if (e->is_dir)
                continue;
        }
        while (known && (cmp = strcmp(known, e->name)) < 0) { /* in the database, gone from disk */
            file_gone(w, d, sqlite3_column_int64(stmt, 0), known, last);
            next_known(w, stmt, &known);
        }
        if (known && cmp == 0) /* known and still there */
            next_known(w, stmt, &known);
        if (cmp == 0 || e->unknown)
            continue;
        if (!d->fresh) {
            if (!d->new_names)
                d->new_names = g_ptr_array_new();
            g_ptr_array_add(d->new_names, e->name);
        }
        w->scan->files_found++;
    }
    while (known && w->st == MAILDEX_STATUS_OK) {
        file_gone(w, d, sqlite3_column_int64(stmt, 0), known, last);
        next_known(w, stmt, &known);
    }
    w->scan->files_found += new_files;
    d->has_new_files = w->scan->files_found > found_before;
    if (stmt)
        sqlite3_reset(stmt);
    subdirs_gone(w, subdirs, last);
    g_array_free(entries, TRUE);
    g_hash_table_destroy(subdirs);
}

/* notmuch looks into every unchanged directory that has subdirectories (its pass 1, to descend)
 * and reports the ignored entries it meets there; so does this, when something may be ignored and a
 * host listens. Nothing else is taken from the listing: the directory did not change, and one that
 * cannot be read here is not diffed either. */
static void peek_ignored(struct walk *w, struct maildex__scan_dir *d, const char *abs)
{
    struct dirent *de;
    DIR *dh;

    if (w->opts->event == NULL ||
        (w->scan->ignore.names->len == 0 && w->scan->ignore.regexes->len == 0) ||
        (dh = opendir(abs)) == NULL)
        return;
    while ((de = readdir(dh)) != NULL)
        if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0 &&
            maildex__ignored(&w->scan->ignore, d->path, de->d_name))
            event(w, MAILDEX_INDEX_IGNORED, d->path, de->d_name, false, false);
    closedir(dh);
}

/* An unchanged directory: visit the subdirectories the database knows. nlink counts its
 * subdirectories on disk (plus 2; notmuch's test for a leaf). */
static void walk_known(struct walk *w, struct maildex__scan_dir *d, int64_t index, const char *abs,
                       nlink_t nlink)
{
    sqlite3_stmt *stmt;
    bool row;
    guint before = w->scan->dirs->len;

    if (w->st || (w->st = maildex__stmt(w->db, MAILDEX__STMT_DIR_CHILDREN, &stmt)))
        return;
    sqlite3_bind_int64(stmt, 1, d->id);
    while (!(w->st = maildex__step_row(w->db, stmt, &row, "cannot read directories")) && row)
        add_dir(w, (const char *) sqlite3_column_text(stmt, 1), index);
    sqlite3_reset(stmt);
    if (w->st == MAILDEX_STATUS_OK && (nlink != 2 || w->scan->dirs->len > before))
        peek_ignored(w, d, abs);
}

/* A directory that exists (stat did not say ENOENT) but cannot be stat'ed. When its parent cannot be
 * opened either, the parent is what is unreadable (chmod 000 on a folder makes its cur/ and new/
 * fail): the warning names the parent, once, and its other subdirectories are skipped silently. */
static void stat_failed(struct walk *w, int64_t index, int err)
{
    struct maildex__scan_dir *d = w->scan->dirs->pdata[index];
    struct maildex__scan_dir *parent = d->parent >= 0 ? w->scan->dirs->pdata[d->parent] : NULL;
    char *parent_abs;
    int fd;

    if (d->path[0] == '\0') {
        w->st = maildex__error(w->db, MAILDEX_STATUS_IO_ERROR, "cannot read mail root '%s': %s",
                               w->db->mail_root, strerror(err));
        return;
    }
    d->unreadable = true;
    if (parent == NULL) { /* the root of a walk limited to a subtree */
        unreadable(w, d, "stat", err);
        return;
    }
    if (parent->unreadable)
        return;
    parent_abs = maildex__path_join(NULL, w->db->mail_root, parent->path, NULL);
    fd = parent_abs ? open(parent_abs, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    if (fd >= 0)
        close(fd);
    if (fd < 0 && errno != ENOENT)
        unreadable(w, parent, "read", errno);
    else
        unreadable(w, d, "stat", err);
    talloc_free(parent_abs);
}

/* A known directory whose name is now a dangling symlink (its parent's mtime did not change, so the
 * parent was not listed): the same as a dangling symlink found in a listing, never "gone". */
static bool dangling_dir(struct walk *w, struct maildex__scan_dir *d, const char *abs)
{
    struct stat sb;
    char *slash, *parent;

    if (lstat(abs, &sb) != 0 || !S_ISLNK(sb.st_mode) || d->path[0] == '\0')
        return false;
    slash = strrchr(d->path, '/');
    parent = slash ? talloc_strndup(NULL, d->path, (size_t) (slash - d->path)) : talloc_strdup(NULL, "");
    dangling(w, parent, slash ? slash + 1 : d->path);
    talloc_free(parent);
    d->unreadable = true;
    return true;
}

static void walk_one(struct walk *w, int64_t index)
{
    struct maildex__scan_dir *d = w->scan->dirs->pdata[index];
    char *abs = maildex__path_join(NULL, w->db->mail_root, d->path, NULL);
    struct stat sb;
    int64_t db_mtime;
    char loop_key[64];
    time_t now = time(NULL);
    int rc, err;

    find_dir(w, d, &db_mtime);
    d->was_new = d->id == 0;
    rc = stat(abs, &sb);
    err = rc == 0 ? 0 : errno;
    if (rc != 0 && err != ENOENT && err != ENOTDIR) {
        stat_failed(w, index, err);
        talloc_free(abs);
        return;
    }
    if (rc != 0 && dangling_dir(w, d, abs)) {
        talloc_free(abs);
        return;
    }
    if (rc != 0 || !S_ISDIR(sb.st_mode)) {
        if (d->id) /* gone since the database saw it (or since the parent was listed) */
            dir_gone(w, d->path, d->id, true);
        if (d->path[0] == '\0')
            w->st = maildex__error(w->db, MAILDEX_STATUS_FILE_NOT_FOUND,
                                   "mail root '%s' is not a directory", w->db->mail_root);
        d->id = -1; /* nothing to record */
        talloc_free(abs);
        return;
    }
    snprintf(loop_key, sizeof loop_key, "%ju:%ju", (uintmax_t) sb.st_dev, (uintmax_t) sb.st_ino);
    if (g_hash_table_contains(w->visited, loop_key)) {
        warn(w, d->path, NULL, "directory already visited through another path (a symlink loop?); "
                               "skipped");
        d->id = -1;
        talloc_free(abs);
        return;
    }
    g_hash_table_add(w->visited, g_strdup(loop_key));
    d->ino = (uint64_t) sb.st_ino;
    d->fs_mtime = mtime_ns(&sb);
    /* notmuch's rule: an mtime in the current second may be followed by more changes in the same
     * second, so it is not recorded and the directory is listed again next time. */
    d->record_mtime = sb.st_mtim.tv_sec < now;
    if (w->opts->full_scan || d->id == 0 || db_mtime != d->fs_mtime)
        walk_listed(w, d, index, abs);
    else
        walk_known(w, d, index, abs, sb.st_nlink);
    talloc_free(abs);
}

/* Whether path is root or inside it (both relative to the mail root, "" being the mail root). */
static bool within(const char *path, const char *root)
{
    size_t n = strlen(root);
    return n == 0 || (strncmp(path, root, n) == 0 && (path[n] == '\0' || path[n] == '/'));
}

/* The roots of the walk: the mail root, or the subtrees asked for, each once and none inside
 * another (which would be walked twice, and taken for a symlink loop). */
static void add_roots(struct walk *w)
{
    const char *const *roots = w->opts->roots;

    if (roots == NULL) {
        add_dir(w, "", -1);
        return;
    }
    for (size_t i = 0; roots[i]; i++) {
        bool covered = false;
        for (size_t j = 0; roots[j] && !covered; j++)
            covered = j != i && within(roots[i], roots[j]) &&
                      (strcmp(roots[i], roots[j]) != 0 || j < i);
        if (!covered)
            add_dir(w, roots[i], -1);
    }
}

maildex_status_t maildex__scan(maildex_db_t *db, const struct maildex__scan_options *opts,
                               struct maildex__scan **out)
{
    struct maildex__scan *scan = g_new0(struct maildex__scan, 1);
    struct walk w = {db, opts, scan, NULL, MAILDEX_STATUS_OK};

    scan->dirs = g_ptr_array_new();
    scan->removals = g_array_new(FALSE, FALSE, sizeof(struct maildex__scan_removal));
    scan->removed_dirs = g_array_new(FALSE, FALSE, sizeof(struct maildex__scan_gone_dir));
    scan->names = g_string_chunk_new(64 * 1024);
    w.visited = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    w.st = maildex__ignore_init(&scan->ignore, db, opts->ignore, scan->names);
    add_roots(&w);
    /* Breadth first over a growing array: parents always come before their children. */
    for (guint i = 0; i < scan->dirs->len && w.st == MAILDEX_STATUS_OK; i++)
        walk_one(&w, i);
    g_hash_table_destroy(w.visited);
    if (w.st != MAILDEX_STATUS_OK) {
        maildex__scan_free(scan);
        *out = NULL;
        return w.st;
    }
    *out = scan;
    return MAILDEX_STATUS_OK;
}

void maildex__scan_free(struct maildex__scan *scan)
{
    if (scan == NULL)
        return;
    for (guint i = 0; i < scan->dirs->len; i++) {
        struct maildex__scan_dir *d = scan->dirs->pdata[i];
        if (d->new_names)
            g_ptr_array_free(d->new_names, TRUE);
        g_free(d);
    }
    g_ptr_array_free(scan->dirs, TRUE);
    g_array_free(scan->removals, TRUE);
    g_array_free(scan->removed_dirs, TRUE);
    maildex__ignore_clear(&scan->ignore);
    g_string_chunk_free(scan->names);
    g_free(scan);
}

maildex_status_t maildex_db_directories(maildex_db_t *db, char ***out)
{
    GPtrArray *paths = g_ptr_array_new_with_free_func(g_free);
    sqlite3_stmt *stmt;
    bool row = false;
    maildex_status_t st = maildex__stmt(db, MAILDEX__STMT_DIR_ALL, &stmt);
    char **list = NULL;

    *out = NULL;
    while (st == MAILDEX_STATUS_OK &&
           !(st = maildex__step_row(db, stmt, &row, "cannot read directories")) && row)
        g_ptr_array_add(paths, g_strdup((const char *) sqlite3_column_text(stmt, 0)));
    if (st == MAILDEX_STATUS_OK)
        sqlite3_reset(stmt);
    if (st == MAILDEX_STATUS_OK && (list = talloc_array(db, char *, paths->len + 1)) == NULL)
        st = MAILDEX_STATUS_NO_MEMORY;
    for (guint i = 0; list && i < paths->len && st == MAILDEX_STATUS_OK; i++)
        if ((list[i] = talloc_strdup(list, paths->pdata[i])) == NULL)
            st = MAILDEX_STATUS_NO_MEMORY;
    if (list)
        list[paths->len] = NULL;
    g_ptr_array_free(paths, TRUE);
    if (st != MAILDEX_STATUS_OK) {
        talloc_free(list);
        return st;
    }
    *out = list;
    return MAILDEX_STATUS_OK;
}
