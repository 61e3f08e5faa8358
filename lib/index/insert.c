/* SPDX-License-Identifier: GPL-3.0-or-later */
/* maildex_insert(): notmuch's `insert`, in phases: the folder (checked, created), the message written
 * to its tmp/ and fsynced, read as `new` reads a file (index.h); then one write transaction: renames
 * still owed, the tags the message will have, the file linked into cur/ or new/ under the flags those
 * tags imply and the directory fsynced, indexed through `new`'s own writer call (maildex__store_add),
 * tagged, committed. A failure undoes what was done, file included, unless the caller asked to keep
 * the message. It must not print, read config or run hooks: cli/cmd-insert.c does. */
#include "store/maildex-private.h"

#include "index.h"
#include "util/maildir.h"
#include "message/renames.h"
#include "message/write.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#define COPY_BUFFER 65536

struct delivery {
    maildex_db_t *db;
    const maildex_insert_options_t *opts;
    void *ctx;             /* owns everything below */
    char *folder;          /* relative to the mail root, "" for the root */
    char *maildir;         /* absolute */
    char *unique;          /* the file's unique name (no info) */
    char *tmp_path;        /* the file in tmp/, until it is linked */
    char *final_path;      /* where it was linked */
    struct maildex__file_read read;
    maildex_status_t st;   /* sticky */
};

static void fail(struct delivery *d, maildex_status_t st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void fail(struct delivery *d, maildex_status_t st, const char *fmt, ...)
{
    va_list ap;
    char *msg;

    if (d->st)
        return;
    va_start(ap, fmt);
    msg = talloc_vasprintf(d->ctx, fmt, ap);
    va_end(ap);
    d->st = maildex__error(d->db, st, "%s", msg ? msg : "out of memory");
}

/* ---- the folder --------------------------------------------------------------------------------- */

static bool sync_dir(const char *path)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    bool ok = fd >= 0 && fsync(fd) == 0;

    if (fd >= 0)
        close(fd);
    return ok;
}

/* mkdir -p, each new directory made durable in its parent (notmuch's mkdir_recursive). */
static bool make_dirs(struct delivery *d, const char *path, mode_t mode)
{
    struct stat sb;
    char *parent;

    if (stat(path, &sb) == 0) {
        if (!S_ISDIR(sb.st_mode))
            fail(d, MAILDEX_STATUS_IO_ERROR, "cannot create folder: '%s' is not a directory", path);
        return d->st == MAILDEX_STATUS_OK;
    }
    if (errno != ENOENT) {
        fail(d, MAILDEX_STATUS_IO_ERROR, "cannot create folder: '%s': %s", path, strerror(errno));
        return false;
    }
    parent = g_path_get_dirname(path);
    if (make_dirs(d, parent, mode)) {
        if (mkdir(path, mode) != 0 && errno != EEXIST)
            fail(d, MAILDEX_STATUS_IO_ERROR, "cannot create directory '%s': %s", path,
                 strerror(errno));
        else if (!sync_dir(parent))
            fail(d, MAILDEX_STATUS_IO_ERROR, "cannot sync directory '%s': %s", parent,
                 strerror(errno));
    }
    g_free(parent);
    return d->st == MAILDEX_STATUS_OK;
}

static void prepare_folder(struct delivery *d)
{
    static const char *const subdirs[] = {"cur", "new", "tmp"};
    const mode_t mode = d->opts->world_readable ? 0755 : 0700;
    struct stat sb;

    d->folder = maildex__maildir_folder_normalise(d->ctx, d->opts->folder);
    if (d->folder == NULL) {
        fail(d, MAILDEX_STATUS_INVALID_ARGUMENT, "invalid folder name '%s': it must be a path "
             "inside the mail root, without '..' (and without 'cur', 'new' or 'tmp', which are a "
             "Maildir's own)", d->opts->folder);
        return;
    }
    d->maildir = maildex__path_join(d->ctx, d->db->mail_root, d->folder, NULL);
    for (size_t i = 0; i < 3 && d->st == MAILDEX_STATUS_OK; i++) {
        char *sub = talloc_asprintf(d->ctx, "%s/%s", d->maildir, subdirs[i]);
        if (d->opts->create_folder)
            make_dirs(d, sub, mode);
        else if (stat(sub, &sb) != 0 || !S_ISDIR(sb.st_mode))
            fail(d, MAILDEX_STATUS_FILE_NOT_FOUND, "no Maildir folder '%s' in the mail root: '%s' "
                 "is not a directory", d->folder, sub);
    }
}

/* ---- the message in tmp/ ------------------------------------------------------------------------ */

/* Dovecot's unique name, as notmuch makes it: seconds, microseconds, pid, host ('/' and ':' made
 * '_'). */
static char *unique_name(void *ctx)
{
    char host[256];
    struct timeval tv;

    if (gethostname(host, sizeof host) != 0)
        g_strlcpy(host, "unknown", sizeof host);
    host[sizeof host - 1] = '\0';
    for (char *p = host; *p; p++)
        if (*p == '/' || *p == ':')
            *p = '_';
    gettimeofday(&tv, NULL);
    return talloc_asprintf(ctx, "%ld.M%ldP%ld.%s", (long) tv.tv_sec, (long) tv.tv_usec,
                           (long) getpid(), host);
}

static bool write_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        buf += n;
        len -= (size_t) n;
    }
    return true;
}

/* Copies in to out; an mbox's leading "From " becomes "X-Envelope-From: " (notmuch's copy_fd).
 * Returns the bytes read, or -1 with *what set to the failing side. */
static ssize_t copy_message(int in, int out, const char **what)
{
    char *buf = g_malloc(COPY_BUFFER);
    size_t have = 0, total = 0;
    bool first = true;
    ssize_t n = 0;

    for (;;) {
        n = read(in, buf + have, COPY_BUFFER - have);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            *what = "read the message";
            break;
        }
        have += (size_t) n;
        if (first && have < 5 && n > 0)
            continue; /* not yet enough to tell an mbox's "From " */
        if (first && have >= 5 && strncmp(buf, "From ", 5) == 0) {
            if (!write_all(out, "X-Envelope-From: ", 17) || !write_all(out, buf + 5, have - 5)) {
                *what = "write the message";
                n = -1;
                break;
            }
        } else if (!write_all(out, buf, have)) {
            *what = "write the message";
            n = -1;
            break;
        }
        first = false;
        total += have;
        have = 0;
        if (n == 0)
            break;
    }
    g_free(buf);
    return n < 0 ? -1 : (ssize_t) total;
}

static void write_tmp(struct delivery *d, int in)
{
    const mode_t mode = d->opts->world_readable ? 0644 : 0600;
    const char *what = NULL;
    ssize_t copied;
    int out;

    do {
        d->unique = unique_name(d->ctx);
        d->tmp_path = talloc_asprintf(d->ctx, "%s/tmp/%s", d->maildir, d->unique);
        out = open(d->tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    } while (out < 0 && errno == EEXIST);
    if (out < 0) {
        fail(d, MAILDEX_STATUS_IO_ERROR, "cannot create '%s': %s", d->tmp_path, strerror(errno));
        d->tmp_path = NULL;
        return;
    }
    copied = copy_message(in, out, &what);
    if (copied < 0)
        fail(d, MAILDEX_STATUS_IO_ERROR, "cannot %s into '%s': %s", what, d->tmp_path, strerror(errno));
    else if (copied == 0)
        fail(d, MAILDEX_STATUS_INVALID_ARGUMENT, "no message to deliver: the input is empty");
    else if (fsync(out) != 0)
        fail(d, MAILDEX_STATUS_IO_ERROR, "cannot sync '%s': %s", d->tmp_path, strerror(errno));
    if (close(out) != 0)
        fail(d, MAILDEX_STATUS_IO_ERROR, "cannot write '%s': %s", d->tmp_path, strerror(errno));
    if (d->st) { /* nothing of the input to keep */
        unlink(d->tmp_path);
        d->tmp_path = NULL;
    }
}

static void read_message(struct delivery *d)
{
    const struct maildex__mime_ops *mime;
    struct maildex__parse_options parse = {.decrypt = d->opts->decrypt, .user_fields = d->db->user_fields};

    if ((d->st = maildex__mime(d->db, &mime)) != MAILDEX_STATUS_OK)
        return;
    maildex__file_read(mime, NULL, &parse, d->ctx, d->tmp_path, &d->read);
    if (d->read.rc == MAILDEX__PARSE_NOT_MAIL)
        fail(d, MAILDEX_STATUS_FILE_NOT_EMAIL, "cannot deliver the message: %s",
             d->read.error ? d->read.error : "no From, Subject or To");
    else if (d->read.rc != MAILDEX__PARSE_OK)
        fail(d, MAILDEX_STATUS_IO_ERROR, "cannot read '%s': %s", d->tmp_path,
             d->read.error ? d->read.error : "unknown error");
}

/* ---- the transaction ---------------------------------------------------------------------------- */

static bool has_tag(GPtrArray *tags, const char *tag)
{
    for (guint i = 0; i < tags->len; i++)
        if (strcmp(tags->pdata[i], tag) == 0)
            return true;
    return false;
}

static void set_tag(GPtrArray *tags, const char *tag, bool add)
{
    for (guint i = 0; i < tags->len; i++)
        if (strcmp(tags->pdata[i], tag) == 0) {
            if (!add)
                g_ptr_array_remove_index(tags, i);
            return;
        }
    if (add)
        g_ptr_array_add(tags, (gpointer) tag);
}

/* The tags the message will have: a known one's own, else what indexing, new_tags and the ops give
 * it, in that order. */
static void final_tags(struct delivery *d, int64_t key, GPtrArray *tags)
{
    const struct maildex__parsed_message *m = d->read.msg;
    sqlite3_stmt *stmt;
    bool row;

    if (key) {
        if ((d->st = maildex__stmt(d->db, MAILDEX__STMT_MESSAGE_TAG_NAMES, &stmt)) != 0)
            return;
        sqlite3_bind_int64(stmt, 1, key);
        while ((d->st = maildex__step_row(d->db, stmt, &row, "cannot read a message's tags")) == 0 &&
               row)
            g_ptr_array_add(tags, talloc_strdup(d->ctx, (const char *) sqlite3_column_text(stmt, 0)));
        sqlite3_reset(stmt);
        return;
    }
    set_tag(tags, "attachment", m->has_attachment);
    set_tag(tags, "signed", m->is_signed);
    set_tag(tags, "encrypted", m->is_encrypted);
    for (size_t i = 0; d->opts->new_tags && d->opts->new_tags[i]; i++)
        set_tag(tags, d->opts->new_tags[i], true);
    for (size_t i = 0; i < d->opts->nops; i++)
        set_tag(tags, d->opts->ops[i].tag, d->opts->ops[i].add);
}

/* The file's directory (relative) and name: new/ without info, or cur/ with the flags of tags when
 * they want some (notmuch's rename of a file in new/). */
static void final_place(struct delivery *d, GPtrArray *tags, char **dir, char **name)
{
    char set[8], clear[8];
    size_t ns = 0, nc = 0;
    bool to_cur = false;

    for (size_t i = 0; i < maildex__flag_tag_count; i++) {
        const struct maildex__flag_tag *ft = &maildex__flag_tags[i];
        if (has_tag(tags, ft->tag) != ft->inverse)
            set[ns++] = ft->flag;
        else
            clear[nc++] = ft->flag;
    }
    set[ns] = clear[nc] = '\0';
    *name = d->opts->synchronize_flags
                ? maildex__maildir_retag(d->ctx, d->unique, true, set, clear, &to_cur)
                : talloc_strdup(d->ctx, d->unique);
    *dir = talloc_asprintf(d->ctx, "%s%s%s", d->folder, *d->folder ? "/" : "", to_cur ? "cur" : "new");
}

/* Moves the file from tmp/ to dir/name (link, so that no file is replaced; then unlink) and makes it
 * durable there. */
static void link_file(struct delivery *d, const char *dir, const char *name)
{
    char *abs_dir = maildex__path_join(d->ctx, d->db->mail_root, dir, NULL);
    char *path = talloc_asprintf(d->ctx, "%s/%s", abs_dir, name);

    if (link(d->tmp_path, path) != 0) {
        fail(d, MAILDEX_STATUS_IO_ERROR, "cannot deliver '%s' to '%s': %s", d->tmp_path, path,
             strerror(errno));
        return;
    }
    d->final_path = path;
    unlink(d->tmp_path);
    d->tmp_path = NULL;
    if (!sync_dir(abs_dir))
        fail(d, MAILDEX_STATUS_IO_ERROR, "cannot sync directory '%s': %s", abs_dir, strerror(errno));
}

static void index_message(struct delivery *d)
{
    const struct maildex__parsed_message *m = d->read.msg;
    struct maildex__add_options add = {d->opts->new_tags, d->opts->synchronize_flags, true,
                                       false};
    struct maildex__file_ref f = {0};
    GPtrArray *tags = g_ptr_array_new();
    char *dir = NULL, *name = NULL;
    int64_t key = 0;
    bool added = false;

    if ((d->st = maildex__begin(d->db)) != MAILDEX_STATUS_OK)
        goto done;
    d->st = maildex__renames_finish(d->db);
    if (d->st == MAILDEX_STATUS_OK)
        d->st = maildex__lookup_id(d->db, MAILDEX__STMT_MESSAGE_FIND, m->message_id, &key);
    if (d->st == MAILDEX_STATUS_OK)
        final_tags(d, key, tags);
    if (d->st == MAILDEX_STATUS_OK) {
        final_place(d, tags, &dir, &name);
        d->st = maildex__store_directory(d->db, dir, &f.directory, &f.folder);
    }
    if (d->st == MAILDEX_STATUS_OK)
        link_file(d, dir, name);
    if (d->st == MAILDEX_STATUS_OK) {
        f.name = name;
        f.flags = maildex__maildir_flags(name);
        f.size = d->read.size;
        f.dir_path = dir;
        d->st = maildex__store_add(d->db, m, d->read.text, &f, &add, &added);
    }
    if (d->st == MAILDEX_STATUS_OK && added)
        d->st = maildex__lookup_id(d->db, MAILDEX__STMT_MESSAGE_FIND, m->message_id, &key);
    if (d->st == MAILDEX_STATUS_OK && added && d->opts->nops)
        d->st = maildex__message_tag_ops(d->db, key, d->opts->ops, d->opts->nops, 0, NULL);
    /* As notmuch's tags_to_maildir_flags after indexing: every file of the message follows its
     * tags (this one already does, unless a tag was refused on the way). */
    if (d->st == MAILDEX_STATUS_OK && d->opts->synchronize_flags)
        d->st = maildex__message_files_follow_tags(d->db, key);
    if (d->st == MAILDEX_STATUS_OK)
        d->st = maildex__commit(d->db);
done:
    if (d->st != MAILDEX_STATUS_OK)
        maildex__rollback(d->db);
    g_ptr_array_free(tags, TRUE);
}

/* After a failure: nothing is left, or, with keep, a message that was read stays in new/. */
static void clean_up(struct delivery *d, char **path)
{
    if (d->opts->keep && d->tmp_path) {
        char *kept = talloc_asprintf(d->ctx, "%s/new/%s", d->maildir, d->unique);
        if (link(d->tmp_path, kept) == 0 && sync_dir(talloc_asprintf(d->ctx, "%s/new", d->maildir)))
            d->final_path = kept;
    }
    if (d->tmp_path)
        unlink(d->tmp_path);
    if (!d->opts->keep && d->final_path && unlink(d->final_path) == 0)
        d->final_path = NULL;
    if (d->opts->keep && d->final_path)
        *path = strdup(d->final_path);
}

maildex_status_t maildex_insert(maildex_db_t *db, int fd, const maildex_insert_options_t *opts,
                                char **path)
{
    struct delivery d = {db, opts, talloc_new(NULL), NULL, NULL, NULL, NULL, NULL, {0},
                         MAILDEX_STATUS_OK};
    char *ignored = NULL;
    maildex_status_t st;

    path = path ? path : &ignored;
    *path = NULL;
    if (db->mode == MAILDEX_DB_READ_ONLY)
        d.st = maildex__error(db, MAILDEX_STATUS_READ_ONLY, "database '%s' was opened read-only",
                              db->path);
    for (size_t i = 0; i < opts->nops && d.st == MAILDEX_STATUS_OK; i++)
        if (opts->ops[i].tag == NULL || (opts->ops[i].add && strlen(opts->ops[i].tag) > MAILDEX_TAG_MAX))
            fail(&d, MAILDEX_STATUS_INVALID_ARGUMENT, "cannot %s tag '%s': %s",
                 opts->ops[i].add ? "add" : "remove", opts->ops[i].tag ? opts->ops[i].tag : "(null)",
                 opts->ops[i].tag ? "tag value is too long (exceeds 200 bytes)" : "tag is NULL");
    if (d.st == MAILDEX_STATUS_OK)
        prepare_folder(&d);
    if (d.st == MAILDEX_STATUS_OK)
        write_tmp(&d, fd);
    if (d.st == MAILDEX_STATUS_OK)
        read_message(&d);
    if (d.st == MAILDEX_STATUS_OK)
        index_message(&d);
    if (d.st == MAILDEX_STATUS_OK)
        *path = strdup(d.final_path);
    else
        clean_up(&d, path);
    st = d.st;
    free(ignored);
    talloc_free(d.ctx);
    return st;
}
