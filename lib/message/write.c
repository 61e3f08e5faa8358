/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The writer's per-message operations (see write.h). */
#include "write.h"

#include "util/maildir.h"
#include "properties.h"
#include "tags.h"
#include "renames.h"
#include "text-queue.h"
#include "text.h"
#include "threads.h"

#include <string.h>

#define DATE_MAX ((int64_t) 1 << 42)

/* meta.messages, the count `count '*'` answers from, changes by the messages added minus those
 * removed; summed in memory and written once before each commit (a participant in the handle's
 * transactions). */
struct message_count {
    int64_t delta;
};

static maildex_status_t count_before_commit(maildex_db_t *db, void *state)
{
    struct message_count *c = state;
    int64_t delta = c->delta;

    c->delta = 0;
    return delta == 0 ? MAILDEX_STATUS_OK
                      : maildex__run_ids(db, MAILDEX__STMT_MESSAGE_COUNT_ADD, delta, 0,
                                         "cannot count messages");
}

static void count_after_rollback(maildex_db_t *db, void *state)
{
    (void) db;
    ((struct message_count *) state)->delta = 0;
}

/* Rank 30: after the rows and the tag counts (lib/message/README.md). */
static const struct maildex__participant count_participant = {
    .name = "message count",
    .rank = 30,
    .before_commit = count_before_commit,
    .after_rollback = count_after_rollback,
};

/* Adds delta to the messages this transaction added, joining the handle's transactions on first
 * use. */
static maildex_status_t count_messages(maildex_db_t *db, int delta)
{
    struct message_count *c = maildex__participant_join(db, &count_participant, sizeof *c);

    if (c == NULL)
        return MAILDEX_STATUS_NO_MEMORY;
    c->delta += delta;
    return MAILDEX_STATUS_OK;
}

/* Keys within one second are handed out downwards, from the top of the second's range: newest first
 * (descending keys, the order every search streams in) then lists messages of the same second in the
 * order they were added, as notmuch lists them (Xapian breaks timestamp ties by ascending docid), and
 * oldest first, which reads keys ascending, turns each second's run around. A new key goes below
 * every key of its second, whatever run of `new` made them, so the order holds across runs and
 * removals. */
maildex_status_t maildex__store_allocate_key(maildex_db_t *db, int64_t date, int64_t *key)
{
    sqlite3_stmt *stmt;
    maildex_status_t st;
    bool row, down = true;

    if (date < 0)
        date = 0;
    if (date >= DATE_MAX)
        date = DATE_MAX - 1;
    /* Almost always one probe. A second with more than 2^20 messages (a million mails dated 0) spills
     * into the second before (after the second 0, the one after), which keeps the order nearly right
     * and never fails. */
    for (;;) {
        int64_t lo = maildex__key_of_date(date), hi = lo + ((int64_t) 1 << MAILDEX__KEY_SHIFT) - 1;
        st = maildex__stmt(db, MAILDEX__STMT_MESSAGE_KEY_MIN, &stmt);
        if (st)
            return st;
        sqlite3_bind_int64(stmt, 1, lo);
        sqlite3_bind_int64(stmt, 2, hi);
        st = maildex__step_row(db, stmt, &row, "cannot allocate a message key");
        if (st)
            return st;
        if (!row || sqlite3_column_type(stmt, 0) == SQLITE_NULL) {
            *key = hi;
            break;
        }
        /* Never 0: look-ups answer 0 for "no such message" (maildex__lookup_id), so a message keyed 0
         * (dated 0: no Date, or before 1970) was lost to them: restore skipped its tags. */
        if (sqlite3_column_int64(stmt, 0) > (lo ? lo : 1)) {
            *key = sqlite3_column_int64(stmt, 0) - 1;
            break;
        }
        sqlite3_reset(stmt);
        down = down && date > 0;
        date = down ? date - 1 : date + 1;
    }
    sqlite3_reset(stmt);
    return MAILDEX_STATUS_OK;
}

static maildex_status_t insert_file(maildex_db_t *db, int64_t key,
                                    const struct maildex__file_ref *f)
{
    sqlite3_stmt *stmt;
    maildex_status_t st = maildex__stmt(db, MAILDEX__STMT_FILE_INSERT, &stmt);

    if (st)
        return st;
    sqlite3_bind_int64(stmt, 1, f->directory);
    sqlite3_bind_text(stmt, 2, f->name, -1, SQLITE_STATIC);
    sqlite3_bind_int64(stmt, 3, key);
    sqlite3_bind_int64(stmt, 4, f->folder);
    if (f->flags)
        sqlite3_bind_text(stmt, 5, f->flags, -1, SQLITE_STATIC);
    sqlite3_bind_int64(stmt, 6, f->size);
    return maildex__step_done(db, stmt, "cannot record a file");
}

/* prepared, when given and held, is taken over by the queue. */
static maildex_status_t insert_text(maildex_db_t *db, int64_t key,
                                    const struct maildex__parsed_message *m,
                                    struct maildex__store_text *prepared, bool hold)
{
    struct maildex__store_text *built = NULL;
    maildex_status_t st;

    if (prepared && hold)
        return maildex__text_hold(db, key, prepared);
    if (prepared == NULL)
        prepared = built = maildex__store_text_prepare(NULL, m, NULL);
    st = prepared ? maildex__text_write(db, key, prepared) : MAILDEX_STATUS_NO_MEMORY;
    talloc_free(built);
    return st;
}

/* Each column of text gains the copy's text (fresh) unless it already holds it; the changed
 * columns lose their recorded tokens and the body its packed form, which are made again. Whether
 * anything changed. */
static bool merge_columns(struct maildex__store_text *text, const char *const old[MAILDEX__TEXT_COLUMNS],
                          const char *const fresh[MAILDEX__TEXT_COLUMNS])
{
    bool changed = false;

    for (int c = 0; c < MAILDEX__TEXT_COLUMNS; c++) {
        const char *was = old[c] ? old[c] : "";
        if (*fresh[c] == '\0' || strstr(was, fresh[c]) != NULL) {
            text->cols[c] = talloc_strdup(text, was);
            continue;
        }
        text->cols[c] = talloc_asprintf(text, "%s%s%s", was, *was ? "\n" : "", fresh[c]);
        text->tokens[c] = NULL;
        changed = true;
    }
    if (changed)
        maildex__store_text_pack_body(text);
    return changed;
}

/* Before a copy's different From joins the from column: the From the message was indexed with, which
 * show names (sql/0008-indexed-from.sql). Kept once; the column holds it alone until then. */
static maildex_status_t keep_indexed_from(maildex_db_t *db, int64_t key, const char *old, const char *fresh)
{
    sqlite3_stmt *stmt;
    maildex_status_t st;

    if (*fresh == '\0' || strstr(old ? old : "", fresh) != NULL)
        return MAILDEX_STATUS_OK;
    if ((st = maildex__stmt(db, MAILDEX__STMT_INDEXED_FROM_KEEP, &stmt)) != MAILDEX_STATUS_OK)
        return st;
    sqlite3_bind_int64(stmt, 1, key);
    sqlite3_bind_text(stmt, 2, old ? old : "", -1, SQLITE_TRANSIENT);
    return maildex__step_done(db, stmt, "cannot keep a message's From");
}

/* The merge for a message whose rows are still held: the held text changes, nothing is written. */
static maildex_status_t merge_held_text(maildex_db_t *db, int64_t key, struct maildex__store_text *held,
                                        const char *const fresh[MAILDEX__TEXT_COLUMNS])
{
    const char *old[MAILDEX__TEXT_COLUMNS];
    maildex_status_t st = keep_indexed_from(db, key, held->cols[MAILDEX__COL_FROM], fresh[MAILDEX__COL_FROM]);

    memcpy(old, held->cols, sizeof old);
    if (st == MAILDEX_STATUS_OK)
        merge_columns(held, old, fresh);
    return st;
}

/* notmuch indexes every copy of a duplicate Message-ID into the one message: a word, attachment
 * name or type found only in the second copy finds the message. Identical copies, the usual case,
 * change nothing. */
static maildex_status_t merge_copy_text(maildex_db_t *db, int64_t key,
                                        const struct maildex__parsed_message *m)
{
    void *local = talloc_new(NULL);
    struct maildex__store_text *merged = talloc_zero(local, struct maildex__store_text);
    struct maildex__store_text *held = maildex__text_held(db, key);
    const char *fresh[MAILDEX__TEXT_COLUMNS], *old[MAILDEX__TEXT_COLUMNS];
    sqlite3_stmt *stmt = NULL;
    bool row = false, changed = false;
    maildex_status_t st = held ? MAILDEX_STATUS_OK : maildex__stmt(db, MAILDEX__STMT_TEXT_READ, &stmt);

    maildex__text_columns(local, m, fresh);
    if (st == MAILDEX_STATUS_OK && (merged == NULL || fresh[MAILDEX__COL_TO] == NULL || fresh[MAILDEX__COL_SUBJECT] == NULL))
        st = maildex__error(db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
    if (st == MAILDEX_STATUS_OK && held) {
        st = merge_held_text(db, key, held, fresh);
        goto done;
    }
    if (st)
        goto done;
    sqlite3_bind_int64(stmt, 1, key);
    st = maildex__step_row(db, stmt, &row, "cannot read a message's text");
    for (int c = 0; st == MAILDEX_STATUS_OK && row && c < MAILDEX__TEXT_COLUMNS; c++)
        old[c] = (const char *) sqlite3_column_text(stmt, c);
    if (st == MAILDEX_STATUS_OK && row)
        st = keep_indexed_from(db, key, old[MAILDEX__COL_FROM], fresh[MAILDEX__COL_FROM]);
    if (st == MAILDEX_STATUS_OK && row)
        changed = merge_columns(merged, old, fresh);
    sqlite3_reset(stmt);
    if (st || !row || !changed)
        goto done;
    st = maildex__text_delete(db, key);
    if (st == MAILDEX_STATUS_OK)
        st = maildex__text_write(db, key, merged);
done:
    talloc_free(local);
    return st;
}

/* The tags notmuch derives from a file's MIME structure. A copy can only add them. */
static maildex_status_t add_structure_tags(maildex_db_t *db, int64_t key,
                                           const struct maildex__parsed_message *m)
{
    maildex_status_t st = MAILDEX_STATUS_OK;

    if (m->has_attachment)
        st = maildex__message_tag(db, key, "attachment", true, NULL);
    if (st == MAILDEX_STATUS_OK && m->is_signed)
        st = maildex__message_tag(db, key, "signed", true, NULL);
    if (st == MAILDEX_STATUS_OK && m->is_encrypted)
        st = maildex__message_tag(db, key, "encrypted", true, NULL);
    return st;
}

/* Binds the columns a message's headers decide, in MESSAGE_INSERT's and MESSAGE_UPDATE's order from
 * parameter first on: date, parent, subject, author, then the revision that stamps them. */
static void bind_headers(sqlite3_stmt *stmt, int first, const struct maildex__parsed_message *m,
                         int64_t revision)
{
    sqlite3_bind_int64(stmt, first, m->date);
    if (m->parent_id)
        sqlite3_bind_text(stmt, first + 1, m->parent_id, -1, SQLITE_STATIC);
    /* the protected Subject is the one shown (notmuch's _notmuch_message_update_subject) */
    sqlite3_bind_text(stmt, first + 2, m->subject_protected ? m->subject_protected : m->subject, -1,
                      SQLITE_STATIC);
    sqlite3_bind_text(stmt, first + 3, m->from_name, -1, SQLITE_STATIC);
    sqlite3_bind_int64(stmt, first + 4, revision);
}

/* The mailboxes `address` prints, kept with the message (sql/0004-addresses.sql). */
static maildex_status_t insert_addresses(maildex_db_t *db, int64_t key,
                                         const struct maildex__parsed_message *m)
{
    sqlite3_stmt *stmt;
    maildex_status_t st = maildex__stmt(db, MAILDEX__STMT_ADDRESSES_INSERT, &stmt);

    if (st)
        return st;
    sqlite3_bind_int64(stmt, 1, key);
    /* An empty blob, never NULL, for a message with no mailboxes: the row says "stored". */
    sqlite3_bind_blob(stmt, 2, m->senders ? m->senders : "", m->senders ? (int) m->senders_len : 0,
                      SQLITE_STATIC);
    sqlite3_bind_blob(stmt, 3, m->recipients ? m->recipients : "",
                      m->recipients ? (int) m->recipients_len : 0, SQLITE_STATIC);
    return maildex__step_done(db, stmt, "cannot store a message's addresses");
}

static maildex_status_t insert_message(maildex_db_t *db, const struct maildex__parsed_message *m,
                                       struct maildex__store_text *text, bool hold, int64_t *key)
{
    sqlite3_stmt *stmt;
    int64_t thread, revision;
    maildex_status_t st = maildex__store_allocate_key(db, m->date, key);

    if (st == MAILDEX_STATUS_OK)
        st = maildex__thread_for_new_message(db, m->message_id, m->references, &thread);
    if (st == MAILDEX_STATUS_OK) {
        maildex__thread_changed(db, thread);
        st = maildex__current_revision(db, &revision);
    }
    if (st == MAILDEX_STATUS_OK)
        st = maildex__stmt(db, MAILDEX__STMT_MESSAGE_INSERT, &stmt);
    if (st)
        return st;
    sqlite3_bind_int64(stmt, 1, *key);
    sqlite3_bind_text(stmt, 2, m->message_id, -1, SQLITE_STATIC);
    sqlite3_bind_int64(stmt, 3, thread);
    bind_headers(stmt, 4, m, revision);
    st = maildex__step_done(db, stmt, "cannot insert a message");
    if (st == MAILDEX_STATUS_OK)
        st = count_messages(db, 1);
    if (st == MAILDEX_STATUS_OK)
        st = insert_text(db, *key, m, text, hold);
    return st ? st : insert_addresses(db, *key, m);
}

static maildex_status_t tag_new_message(maildex_db_t *db, int64_t key,
                                        const struct maildex__parsed_message *m,
                                        const struct maildex__file_ref *f,
                                        const struct maildex__add_options *opts)
{
    const char *tags[64];
    size_t n = 0;
    bool is_new, in_maildir = maildex__maildir_is_leaf(f->dir_path, &is_new);
    bool flag_info = in_maildir && (f->flags || is_new);
    const char *flags = f->flags ? f->flags : "";

    /* The message has this one file, so its flags are known without asking the database: the same
     * rules as maildex__message_flags_to_tags, then new.tags (no "unread" when the file is seen),
     * then "attachment". Duplicate names are harmless (INSERT OR IGNORE). */
    if (opts->synchronize_flags && flag_info)
        for (size_t i = 0; i < maildex__flag_tag_count; i++)
            if ((strchr(flags, maildex__flag_tags[i].flag) != NULL) != maildex__flag_tags[i].inverse)
                tags[n++] = maildex__flag_tags[i].tag;
    for (size_t i = 0; opts->new_tags && opts->new_tags[i] && n < 58; i++) {
        if (strcmp(opts->new_tags[i], "unread") == 0 && opts->synchronize_flags && flag_info &&
            strchr(flags, 'S'))
            continue;
        tags[n++] = opts->new_tags[i];
    }
    if (m->has_attachment)
        tags[n++] = "attachment";
    if (m->is_signed)
        tags[n++] = "signed";
    if (m->is_encrypted)
        tags[n++] = "encrypted";
    return maildex__message_tag_new(db, key, tags, n);
}

maildex_status_t maildex__store_add(maildex_db_t *db, const struct maildex__parsed_message *m,
                                    struct maildex__store_text *text,
                                    const struct maildex__file_ref *file,
                                    const struct maildex__add_options *opts, bool *added)
{
    int64_t key;
    maildex_status_t st = maildex__lookup_id(db, MAILDEX__STMT_MESSAGE_FIND, m->message_id, &key);

    *added = false;
    if (st)
        return st;
    if (key) {
        st = insert_file(db, key, file);
        if (st == MAILDEX_STATUS_OK)
            st = maildex__thread_changed_message(db, key);
        if (st == MAILDEX_STATUS_OK)
            st = merge_copy_text(db, key, m);
        if (st == MAILDEX_STATUS_OK)
            st = add_structure_tags(db, key, m);
        if (st == MAILDEX_STATUS_OK)
            st = maildex__properties_indexed(db, key, m);
        if (st == MAILDEX_STATUS_OK && opts->synchronize_flags && !opts->tags_decide_flags)
            st = maildex__message_flags_to_tags(db, key);
        return st;
    }
    st = insert_message(db, m, text, opts->hold_text, &key);
    if (st == MAILDEX_STATUS_OK)
        st = insert_file(db, key, file);
    if (st == MAILDEX_STATUS_OK)
        st = tag_new_message(db, key, m, file, opts);
    if (st == MAILDEX_STATUS_OK)
        st = maildex__properties_indexed(db, key, m);
    if (st == MAILDEX_STATUS_OK)
        *added = true;
    return st;
}

maildex_status_t maildex__store_move_file(maildex_db_t *db, int64_t file_id,
                                          const struct maildex__file_ref *to, bool sync_flags)
{
    sqlite3_stmt *stmt;
    int64_t key = 0;
    bool row;
    maildex_status_t st = maildex__stmt(db, MAILDEX__STMT_FILE_MOVE, &stmt);

    if (st)
        return st;
    sqlite3_bind_int64(stmt, 1, file_id);
    sqlite3_bind_int64(stmt, 2, to->directory);
    sqlite3_bind_text(stmt, 3, to->name, -1, SQLITE_STATIC);
    sqlite3_bind_int64(stmt, 4, to->folder);
    if (to->flags)
        sqlite3_bind_text(stmt, 5, to->flags, -1, SQLITE_STATIC);
    st = maildex__step_row(db, stmt, &row, "cannot move a file");
    if (st == MAILDEX_STATUS_OK && row)
        key = sqlite3_column_int64(stmt, 0);
    sqlite3_reset(stmt);
    if (st == MAILDEX_STATUS_OK && key)
        st = maildex__thread_changed_message(db, key);
    if (st == MAILDEX_STATUS_OK && key && sync_flags)
        st = maildex__message_flags_to_tags(db, key);
    return st;
}


/* A message's text out of the index and the texts table; its rows may still be held, so held rows
 * are written first. */
static maildex_status_t rekey(maildex_db_t *db, int64_t from, int64_t to)
{
    static const maildex__stmt_id_t ids[] = {MAILDEX__STMT_REKEY_MESSAGE, MAILDEX__STMT_REKEY_FILES,
                                             MAILDEX__STMT_REKEY_TAGS,
                                             MAILDEX__STMT_REKEY_PROPERTIES};
    maildex_status_t st = MAILDEX_STATUS_OK;

    for (size_t i = 0; i < sizeof ids / sizeof ids[0] && st == MAILDEX_STATUS_OK; i++)
        st = maildex__run_ids(db, ids[i], from, to, "cannot move a message to its new date");
    return st;
}

static maildex_status_t update_message(maildex_db_t *db, int64_t key,
                                       const struct maildex__parsed_message *m)
{
    sqlite3_stmt *stmt;
    int64_t revision;
    maildex_status_t st = maildex__current_revision(db, &revision);

    if (st == MAILDEX_STATUS_OK)
        st = maildex__stmt(db, MAILDEX__STMT_MESSAGE_UPDATE, &stmt);
    if (st)
        return st;
    sqlite3_bind_int64(stmt, 1, key);
    bind_headers(stmt, 2, m, revision);
    return maildex__step_done(db, stmt, "cannot update a message");
}

maildex_status_t maildex__store_reindex(maildex_db_t *db, int64_t key,
                                        const struct maildex__parsed_message *m, bool drop_session_keys,
                                        int64_t *new_key)
{
    sqlite3_stmt *stmt;
    int64_t date = 0, thread = 0;
    bool row;
    maildex_status_t st = maildex__stmt(db, MAILDEX__STMT_MESSAGE_READ, &stmt);

    *new_key = key;
    if (st)
        return st;
    sqlite3_bind_int64(stmt, 1, key);
    st = maildex__step_row(db, stmt, &row, "cannot read a message");
    if (st == MAILDEX_STATUS_OK && row)
        date = sqlite3_column_int64(stmt, 0), thread = sqlite3_column_int64(stmt, 1);
    sqlite3_reset(stmt);
    if (st || !row)
        return st ? st : maildex__error(db, MAILDEX_STATUS_NOT_FOUND, "no message with key %lld",
                                        (long long) key);
    st = maildex__text_unindex(db, key);
    if (st == MAILDEX_STATUS_OK)
        st = maildex__run_ids(db, MAILDEX__STMT_ADDRESSES_DELETE, key, 0, "cannot unindex a message");
    if (st == MAILDEX_STATUS_OK) /* the text is made again from m alone */
        st = maildex__run_ids(db, MAILDEX__STMT_INDEXED_FROM_DELETE, key, 0, "cannot unindex a message");
    if (st == MAILDEX_STATUS_OK && date != m->date) {
        st = maildex__store_allocate_key(db, m->date, new_key);
        if (st == MAILDEX_STATUS_OK)
            st = rekey(db, key, *new_key);
    }
    if (st == MAILDEX_STATUS_OK)
        st = update_message(db, *new_key, m);
    if (st == MAILDEX_STATUS_OK)
        st = insert_text(db, *new_key, m, NULL, false);
    if (st == MAILDEX_STATUS_OK)
        st = insert_addresses(db, *new_key, m);
    if (st == MAILDEX_STATUS_OK)
        st = maildex__thread_relink(db, thread, m->references);
    if (st == MAILDEX_STATUS_OK)
        st = maildex__message_tag(db, *new_key, "attachment", m->has_attachment, NULL);
    if (st == MAILDEX_STATUS_OK)
        st = maildex__message_tag(db, *new_key, "signed", m->is_signed, NULL);
    if (st == MAILDEX_STATUS_OK)
        st = maildex__message_tag(db, *new_key, "encrypted", m->is_encrypted, NULL);
    if (st == MAILDEX_STATUS_OK)
        st = maildex__properties_reindexed(db, *new_key, drop_session_keys);
    if (st == MAILDEX_STATUS_OK)
        st = maildex__properties_indexed(db, *new_key, m);
    return st;
}

static maildex_status_t delete_message(maildex_db_t *db, int64_t key)
{
    sqlite3_stmt *stmt;
    char *message_id = NULL;
    int64_t thread = 0;
    bool row;
    maildex_status_t st = maildex__text_unindex(db, key);

    if (st == MAILDEX_STATUS_OK)
        st = maildex__run_ids(db, MAILDEX__STMT_ADDRESSES_DELETE, key, 0, "cannot unindex a message");
    if (st == MAILDEX_STATUS_OK)
        st = maildex__run_ids(db, MAILDEX__STMT_INDEXED_FROM_DELETE, key, 0, "cannot unindex a message");
    if (st == MAILDEX_STATUS_OK)
        st = maildex__message_untag_all(db, key);
    if (st == MAILDEX_STATUS_OK)
        st = maildex__run_ids(db, MAILDEX__STMT_PROPERTIES_DELETE, key, 0, "cannot delete properties");
    if (st == MAILDEX_STATUS_OK)
        st = maildex__stmt(db, MAILDEX__STMT_MESSAGE_DELETE, &stmt);
    if (st)
        return st;
    sqlite3_bind_int64(stmt, 1, key);
    st = maildex__step_row(db, stmt, &row, "cannot delete a message");
    if (st == MAILDEX_STATUS_OK && row) {
        message_id = talloc_strdup(db, (const char *) sqlite3_column_text(stmt, 0));
        thread = sqlite3_column_int64(stmt, 1);
        maildex__thread_changed(db, thread);
        st = count_messages(db, -1);
    }
    sqlite3_reset(stmt);
    if (st == MAILDEX_STATUS_OK && message_id)
        st = maildex__thread_message_removed(db, thread, message_id);
    talloc_free(message_id);
    return st;
}

maildex_status_t maildex__store_remove_file(maildex_db_t *db, int64_t file_id, bool sync_flags,
                                            bool *message_removed)
{
    int64_t key = 0, remaining = 0;
    /* FILE_DELETE returns the file's message: a DML with RETURNING runs whole at its first step. */
    maildex_status_t st = maildex__lookup_int(db, MAILDEX__STMT_FILE_DELETE, file_id, &key);

    *message_removed = false;
    if (st || key == 0)
        return st;
    /* A rename still owed for it would otherwise wait for a new file that gets its id. */
    st = maildex__renames_forget(db, file_id);
    if (st == MAILDEX_STATUS_OK)
        st = maildex__lookup_int(db, MAILDEX__STMT_FILE_COUNT_OF_MESSAGE, key, &remaining);
    if (st == MAILDEX_STATUS_OK && remaining > 0)
        st = maildex__thread_changed_message(db, key);
    if (st)
        return st;
    if (remaining > 0)
        return sync_flags ? maildex__message_flags_to_tags(db, key) : MAILDEX_STATUS_OK;
    *message_removed = true;
    return delete_message(db, key);
}

maildex_status_t maildex__store_file_is_last(maildex_db_t *db, int64_t file_id, bool *last)
{
    int64_t value;
    maildex_status_t st = maildex__lookup_int(db, MAILDEX__STMT_FILE_IS_LAST, file_id, &value);

    *last = value != 0;
    return st;
}

maildex_status_t maildex__store_directory(maildex_db_t *db, const char *path, int64_t *id,
                                          int64_t *folder)
{
    sqlite3_stmt *stmt;
    const char *slash = strrchr(path, '/');
    char *parent_path = NULL, *folder_name = NULL;
    int64_t parent = 0, folder_id = 0;
    bool row;
    maildex_status_t st = maildex__stmt(db, MAILDEX__STMT_DIR_FIND, &stmt);

    *id = 0;
    if (st)
        return st;
    sqlite3_bind_text(stmt, 1, path, -1, SQLITE_STATIC);
    st = maildex__step_row(db, stmt, &row, "cannot read directories");
    if (st == MAILDEX_STATUS_OK && row) {
        *id = sqlite3_column_int64(stmt, 0);
        folder_id = sqlite3_column_int64(stmt, 2);
    }
    sqlite3_reset(stmt);
    if (st || *id) {
        if (folder)
            *folder = folder_id;
        return st;
    }
    if (path[0] != '\0') {
        parent_path = talloc_strndup(db, path, slash ? (size_t) (slash - path) : 0);
        st = parent_path ? maildex__store_directory(db, parent_path, &parent, NULL)
                         : MAILDEX_STATUS_NO_MEMORY;
    }
    if (st == MAILDEX_STATUS_OK && (folder_name = talloc_size(db, strlen(path) + 1)) == NULL)
        st = MAILDEX_STATUS_NO_MEMORY;
    if (st == MAILDEX_STATUS_OK) {
        maildex__maildir_folder(path, folder_name);
        st = maildex__find_or_create(db, MAILDEX__STMT_FOLDER_FIND, MAILDEX__STMT_FOLDER_INSERT,
                                     folder_name, &folder_id);
    }
    if (st == MAILDEX_STATUS_OK)
        st = maildex__stmt(db, MAILDEX__STMT_DIR_INSERT, &stmt);
    if (st == MAILDEX_STATUS_OK) {
        sqlite3_bind_text(stmt, 1, path, -1, SQLITE_STATIC);
        if (parent > 0)
            sqlite3_bind_int64(stmt, 2, parent);
        sqlite3_bind_int64(stmt, 3, folder_id);
        st = maildex__step_done(db, stmt, "cannot record a directory");
    }
    if (st == MAILDEX_STATUS_OK) {
        *id = sqlite3_last_insert_rowid(db->sql);
        if (folder)
            *folder = folder_id;
    }
    talloc_free(parent_path);
    talloc_free(folder_name);
    return st;
}

maildex_status_t maildex__store_file_find(maildex_db_t *db, int64_t directory, const char *name,
                                          int64_t *id)
{
    sqlite3_stmt *stmt;
    bool row;
    maildex_status_t st = maildex__stmt(db, MAILDEX__STMT_FILE_FIND, &stmt);

    *id = 0;
    if (st)
        return st;
    sqlite3_bind_int64(stmt, 1, directory);
    sqlite3_bind_text(stmt, 2, name, -1, SQLITE_STATIC);
    st = maildex__step_row(db, stmt, &row, "cannot read files");
    if (st == MAILDEX_STATUS_OK && row)
        *id = sqlite3_column_int64(stmt, 0);
    sqlite3_reset(stmt);
    return st;
}
