/* SPDX-License-Identifier: GPL-3.0-or-later */
/* scan.h: the first phase of `new`: walk the mail root and find what changed, without writing and
 * without opening a mail file. Directories whose mtime matches the database are not listed (their
 * known subdirectories are still visited); a changed directory's listing is diffed against the files
 * table. One bad entry (a symlink loop, a FIFO, a device, a directory inside cur/ or new/) costs one
 * warning and never stops the walk. What notmuch's `new --debug` reports (ignored entries, files and
 * directories gone, dangling symlinks) is told to the host as events (maildex_index_event_t).
 *
 * Something that cannot be read is not something that is gone: only ENOENT (or ENOTDIR, or a file
 * where the directory was) removes what the database knows. A directory that cannot be stat'ed,
 * opened or listed to the end keeps its rows and its subtree untouched, is not listed again until it
 * can be, and costs one warning; an entry that cannot be stat'ed, and a dangling symlink, keep a known
 * file or directory of that name. */
#ifndef MAILDEX_SCAN_H
#define MAILDEX_SCAN_H

#include "ignore.h"
#include "store/maildex-private.h"

#include <glib.h>

struct maildex__scan_dir {
    char *path;          /* relative to the mail root, "" for the root */
    int64_t id;          /* directories.id, 0 when not in the database yet */
    int64_t parent;      /* index into scan->dirs of the parent, -1 for a root of the walk */
    int64_t folder;      /* folders.id, 0 until index.c creates it */
    int64_t fs_mtime;    /* st_mtim in nanoseconds */
    bool record_mtime;   /* listed, and its mtime is old enough to trust (notmuch's rule) */
    bool fresh;          /* no files in the database: every regular file in it is new */
    bool listed;         /* its mtime changed (or a full scan): listed and diffed this run */
    bool was_new;        /* not in the database when the walk found it */
    bool unreadable;     /* exists, but could not be stat'ed or listed: nothing under it changes */
    bool has_new_files;  /* listed, with names the database does not know (index.c makes the rows of
                            these directories first, as notmuch makes its directory documents) */
    uint64_t ino;        /* st_ino: notmuch walks a new directory's entries in inode order */
    GPtrArray *new_names; /* names new to a directory that had files (owned by scan->names) */
};

struct maildex__scan_removal {
    int64_t file_id;
    struct maildex__scan_dir *dir; /* the listed directory it vanished from; NULL when that
                                      directory is gone as a whole */
    int64_t dir_id;      /* directories.id of the row's directory as the walk read it */
    const char *dir_path; /* ... and its path (relative to the mail root; in scan->names) */
    char *name;          /* in scan->names */
    int64_t size;
    bool done;           /* matched as a rename, or removed */
};

struct maildex__scan_gone_dir {
    int64_t id;           /* directories.id of a directory gone from disk */
    const char *path;     /* relative to the mail root; in scan->names */
};

struct maildex__scan {
    GPtrArray *dirs;      /* struct maildex__scan_dir *, parents before children; the roots of the
                             walk (parent -1) first */
    GArray *removals;     /* struct maildex__scan_removal */
    GArray *removed_dirs; /* struct maildex__scan_gone_dir, parents before their children */
    GStringChunk *names;  /* every name string above */
    uint64_t files_found; /* new files: new_names plus the regular files of fresh directories */
    uint64_t warnings;
    uint64_t listed;
    uint64_t unreadable_dirs;    /* directories that exist but could not be stat'ed or listed */
    uint64_t unreadable_entries; /* entries of a listing that exist but could not be stat'ed */
    uint64_t dangling;           /* symbolic links whose target does not exist */
    struct maildex__ignore ignore; /* new.ignore and the database's own files (ignore.h) */
};

struct maildex__scan_options {
    const char *const *ignore;
    const char *const *roots; /* the subtrees to walk (maildex_index_options_t's directories); NULL:
                                 the mail root */
    bool full_scan;
    void (*warning)(void *data, const char *path, const char *reason);
    void (*event)(void *data, const maildex_index_event_t *event);
    void *data;
};

/* Walks the mail root. On success *out is a new scan result (free it with maildex__scan_free). */
maildex_status_t maildex__scan(maildex_db_t *db, const struct maildex__scan_options *opts,
                               struct maildex__scan **out);
void maildex__scan_free(struct maildex__scan *scan);

#endif
