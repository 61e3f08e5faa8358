/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The reading half of maildex_purge (see purge.h): a batch of matched messages, each with its files
 * resolved below the mail root (purge-files.c) and sized, and the dump lines the purge log must hold
 * before any of them goes. It writes nothing: not the store, not the disk. */
#include "purge.h"

#include "message/properties.h"
#include "util/maildir.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A message's Message-ID and when the newest of its tags was put on it (sql/0010-tag-added.sql). */
static const char head_sql[] = "SELECT message_id, (SELECT max(added) FROM message_tags WHERE "
                               "message = ?1) FROM messages WHERE id = ?1";

static int finalize_destructor(sqlite3_stmt **stmt)
{
    sqlite3_finalize(*stmt);
    return 0;
}

maildex_status_t maildex__purge_read_prepare(struct maildex__purge *p, void *ctx)
{
    sqlite3_stmt **holder = talloc(ctx, sqlite3_stmt *);
    int rc;

    if (holder == NULL)
        return maildex__error(p->db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
    *holder = NULL;
    talloc_set_destructor(holder, finalize_destructor);
    rc = sqlite3_prepare_v2(p->db->sql, head_sql, -1, holder, NULL);
    p->head = *holder;
    return rc == SQLITE_OK ? MAILDEX_STATUS_OK : maildex__sql_error(p->db, rc, "cannot read the messages to purge");
}

const char *maildex__purge_reason(int error)
{
    if (error == ELOOP)
        return "reached through a symbolic link that leads out of the mail root";
    if (error == EINVAL)
        return "its Message-ID holds a line break, which the purge log cannot hold";
    return strerror(error);
}

/* In the target folder already (its cur/, its new/, or itself): the file stays where it is. */
static bool in_target(const struct maildex__purge *p, const char *dir)
{
    size_t n = p->target ? strlen(p->target) : 0;

    return p->target && strncmp(dir, p->target, n) == 0 &&
           (dir[n] == '\0' || strcmp(dir + n, "/cur") == 0 || strcmp(dir + n, "/new") == 0);
}

/* Where the file is and how big, or why it cannot go; a file or directory that is not there any
 * more is gone (its row goes), as `new` takes it. */
static void locate(struct maildex__purge *p, struct maildex__purge_file *f)
{
    int err, fd = maildex__purge_fs_dir(p->fs, f->dir, &err);

    if (fd >= 0)
        err = maildex__purge_fs_size(fd, f->name, &f->size);
    f->gone = err == ENOENT || err == ENOTDIR;
    f->error = f->gone ? 0 : err;
}

/* The message's files outside the target, into *out (n of them), on ctx. */
static maildex_status_t read_files(struct maildex__purge *p, void *ctx, int64_t key,
                                   struct maildex__purge_file **out, size_t *n)
{
    GArray *files = g_array_new(FALSE, TRUE, sizeof(struct maildex__purge_file));
    sqlite3_stmt *stmt;
    bool row;
    maildex_status_t st = maildex__stmt(p->db, MAILDEX__STMT_FILE_FIRST_OF_MESSAGE, &stmt);

    if (st == MAILDEX_STATUS_OK)
        sqlite3_bind_int64(stmt, 1, key);
    while (st == MAILDEX_STATUS_OK &&
           (st = maildex__step_row(p->db, stmt, &row, "cannot read the files to purge")) == 0 && row) {
        const char *dir = (const char *) sqlite3_column_text(stmt, 0);
        struct maildex__purge_file f = {.id = sqlite3_column_int64(stmt, 2)};
        if (in_target(p, dir))
            continue;
        f.dir = talloc_strdup(ctx, dir);
        f.name = talloc_strdup(ctx, (const char *) sqlite3_column_text(stmt, 1));
        f.path = maildex__path_join(ctx, p->db->mail_root, f.dir, f.name);
        if (f.dir == NULL || f.name == NULL || f.path == NULL)
            st = maildex__error(p->db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
        g_array_append_val(files, f);
    }
    if (stmt)
        sqlite3_reset(stmt);
    for (guint i = 0; i < files->len && st == MAILDEX_STATUS_OK; i++)
        locate(p, &g_array_index(files, struct maildex__purge_file, i));
    *n = files->len;
    *out = files->len ? talloc_memdup(ctx, files->data, files->len * sizeof(struct maildex__purge_file))
                      : NULL;
    g_array_free(files, TRUE);
    if (st == MAILDEX_STATUS_OK && *n && *out == NULL)
        st = maildex__error(p->db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
    return st;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* The message's tags sorted bytewise, NULL-terminated, on ctx. */
static maildex_status_t read_tags(struct maildex__purge *p, void *ctx, int64_t key, const char ***out)
{
    GPtrArray *tags = g_ptr_array_new();
    sqlite3_stmt *stmt;
    bool row;
    maildex_status_t st = maildex__stmt(p->db, MAILDEX__STMT_MESSAGE_TAG_NAMES, &stmt);

    if (st == MAILDEX_STATUS_OK)
        sqlite3_bind_int64(stmt, 1, key);
    while (st == MAILDEX_STATUS_OK &&
           (st = maildex__step_row(p->db, stmt, &row, "cannot read a message's tags")) == 0 && row)
        g_ptr_array_add(tags, talloc_strdup(ctx, (const char *) sqlite3_column_text(stmt, 0)));
    if (stmt)
        sqlite3_reset(stmt);
    g_ptr_array_sort(tags, compare_names);
    g_ptr_array_add(tags, NULL);
    *out = talloc_memdup(ctx, tags->pdata, tags->len * sizeof(char *));
    g_ptr_array_free(tags, TRUE);
    return st == MAILDEX_STATUS_OK && *out == NULL ? MAILDEX_STATUS_NO_MEMORY : st;
}

/* A line the library formatted (malloc'd), copied to ctx; NULL stays NULL. */
static const char *keep_line(void *ctx, char *line)
{
    char *copy = line ? talloc_strdup(ctx, line) : NULL;

    free(line);
    return copy;
}

/* The message's tags and properties as `dump` writes them. A Message-ID no dump line can hold
 * (a line break in it) makes every file of the message one that cannot go: unlogged, it could not
 * be restored. */
static maildex_status_t read_lines(struct maildex__purge *p, void *ctx, struct maildex__purge_message *m)
{
    const char **tags = NULL;
    maildex_pair_t *props = NULL;
    size_t nprops = 0;
    char *line = NULL;
    maildex_status_t st = read_tags(p, ctx, m->key, &tags), fmt = MAILDEX_STATUS_OK;

    if (st == MAILDEX_STATUS_OK)
        st = maildex__properties_read(p->db, ctx, m->key, &props, &nprops);
    if (st == MAILDEX_STATUS_OK) {
        fmt = maildex_batch_format_tags(m->message_id, tags, false, &line);
        m->tags_line = keep_line(ctx, line);
    }
    if (st == MAILDEX_STATUS_OK && fmt == MAILDEX_STATUS_OK) {
        fmt = maildex_batch_format_properties(m->message_id, props, nprops, &line);
        m->properties_line = keep_line(ctx, line);
    }
    if (fmt == MAILDEX_STATUS_INVALID_ARGUMENT)
        for (size_t i = 0; i < m->nfiles; i++)
            m->files[i].error = m->files[i].gone ? 0 : EINVAL;
    else if (fmt != MAILDEX_STATUS_OK)
        st = maildex__error(p->db, fmt, "out of memory");
    return st;
}

/* The message's Message-ID (NULL: it left the store) and whether it gained a tag after the
 * cutoff. */
static maildex_status_t read_head(struct maildex__purge *p, void *ctx, int64_t key, const char **id,
                                  bool *young)
{
    bool row;
    int rc;

    *id = NULL;
    *young = false;
    sqlite3_reset(p->head);
    sqlite3_bind_int64(p->head, 1, key);
    rc = sqlite3_step(p->head);
    if ((row = rc == SQLITE_ROW)) {
        *id = talloc_strdup(ctx, (const char *) sqlite3_column_text(p->head, 0));
        *young = p->cutoff && sqlite3_column_type(p->head, 1) != SQLITE_NULL &&
                 sqlite3_column_int64(p->head, 1) > p->cutoff;
    }
    rc = row || rc == SQLITE_DONE ? SQLITE_OK : sqlite3_reset(p->head);
    sqlite3_reset(p->head);
    if (rc != SQLITE_OK)
        return maildex__sql_error(p->db, rc, "cannot read a message to purge");
    return row && *id == NULL ? maildex__error(p->db, MAILDEX_STATUS_NO_MEMORY, "out of memory")
                              : MAILDEX_STATUS_OK;
}

maildex_status_t maildex__purge_read(struct maildex__purge *p, void *ctx, const int64_t *keys, size_t n,
                                     GArray *out)
{
    maildex_status_t st = MAILDEX_STATUS_OK;

    for (size_t i = 0; i < n && st == MAILDEX_STATUS_OK; i++) {
        struct maildex__purge_message m = {.key = keys[i]};
        bool young;
        st = read_head(p, ctx, m.key, &m.message_id, &young);
        if (st || m.message_id == NULL)
            continue;
        if (young) {
            p->stats->messages_young++;
            continue;
        }
        st = read_files(p, ctx, m.key, &m.files, &m.nfiles);
        if (st == MAILDEX_STATUS_OK && m.nfiles > 0 && !p->opts->dry_run)
            st = read_lines(p, ctx, &m);
        if (st == MAILDEX_STATUS_OK && m.nfiles > 0)
            g_array_append_val(out, m);
    }
    return st;
}
