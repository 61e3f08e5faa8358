/* Tag bookkeeping for the writer (see tags.h). */
#include "tags.h"

#include "maildir.h"

#include <string.h>

maildex_status_t maildex__tag_lookup(maildex_db_t *db, const char *name, bool create, int64_t *id)
{
    sqlite3_stmt *stmt;
    maildex_status_t st = maildex__stmt(db, MAILDEX__STMT_TAG_FIND, &stmt);
    bool row;

    *id = 0;
    if (st)
        return st;
    sqlite3_bind_text(stmt, 1, name, -1, SQLITE_STATIC);
    st = maildex__step_row(db, stmt, &row, "cannot look up a tag");
    if (st || row) {
        if (row)
            *id = sqlite3_column_int64(stmt, 0);
        sqlite3_reset(stmt);
        return st;
    }
    sqlite3_reset(stmt);
    if (!create)
        return MAILDEX_STATUS_OK;
    st = maildex__stmt(db, MAILDEX__STMT_TAG_CREATE, &stmt);
    if (st)
        return st;
    sqlite3_bind_text(stmt, 1, name, -1, SQLITE_STATIC);
    st = maildex__step_done(db, stmt, "cannot create a tag");
    if (st == MAILDEX_STATUS_OK)
        *id = sqlite3_last_insert_rowid(db->sql);
    return st;
}

static maildex_status_t touch(maildex_db_t *db, int64_t message)
{
    sqlite3_stmt *stmt;
    int64_t revision;
    maildex_status_t st = maildex__current_revision(db, &revision);

    if (st == MAILDEX_STATUS_OK)
        st = maildex__stmt(db, MAILDEX__STMT_MESSAGE_TOUCH, &stmt);
    if (st)
        return st;
    sqlite3_bind_int64(stmt, 1, message);
    sqlite3_bind_int64(stmt, 2, revision);
    return maildex__step_done(db, stmt, "cannot stamp a message's revision");
}

maildex_status_t maildex__message_tag(maildex_db_t *db, int64_t message, const char *name, bool add,
                                      bool *changed)
{
    sqlite3_stmt *stmt;
    int64_t tag;
    maildex_status_t st = maildex__tag_lookup(db, name, add, &tag);
    int n;

    if (changed)
        *changed = false;
    if (st || tag == 0)
        return st;
    st = maildex__stmt(db, add ? MAILDEX__STMT_MESSAGE_TAG_ADD : MAILDEX__STMT_MESSAGE_TAG_REMOVE,
                       &stmt);
    if (st)
        return st;
    sqlite3_bind_int64(stmt, 1, tag);
    sqlite3_bind_int64(stmt, 2, message);
    st = maildex__step_done(db, stmt, "cannot change a tag");
    n = sqlite3_changes(db->sql);
    if (st || n == 0)
        return st;
    st = maildex__stmt(db, MAILDEX__STMT_TAG_COUNT_ADD, &stmt);
    if (st)
        return st;
    sqlite3_bind_int64(stmt, 1, tag);
    sqlite3_bind_int(stmt, 2, add ? 1 : -1);
    st = maildex__step_done(db, stmt, "cannot count a tag");
    if (st == MAILDEX_STATUS_OK && changed)
        *changed = true;
    return st ? st : touch(db, message);
}

maildex_status_t maildex__message_untag_all(maildex_db_t *db, int64_t message)
{
    sqlite3_stmt *stmt;
    maildex_status_t st = maildex__stmt(db, MAILDEX__STMT_MESSAGE_TAGS_UNCOUNT, &stmt);

    if (st)
        return st;
    sqlite3_bind_int64(stmt, 1, message);
    st = maildex__step_done(db, stmt, "cannot count a message's tags");
    if (st == MAILDEX_STATUS_OK)
        st = maildex__stmt(db, MAILDEX__STMT_MESSAGE_TAGS_DELETE, &stmt);
    if (st)
        return st;
    sqlite3_bind_int64(stmt, 1, message);
    return maildex__step_done(db, stmt, "cannot delete a message's tags");
}

maildex_status_t maildex__message_flags_to_tags(maildex_db_t *db, int64_t message)
{
    sqlite3_stmt *stmt;
    char combined[256] = "";
    size_t used = 0;
    bool seen_info = false, row;
    maildex_status_t st = maildex__stmt(db, MAILDEX__STMT_MESSAGE_FILE_FLAGS, &stmt);

    if (st)
        return st;
    sqlite3_bind_int64(stmt, 1, message);
    while ((st = maildex__step_row(db, stmt, &row, "cannot read a message's files")) == 0 && row) {
        const char *dir = (const char *) sqlite3_column_text(stmt, 0);
        const char *flags = (const char *) sqlite3_column_text(stmt, 1);
        bool is_new;
        if (!maildex__maildir_is_leaf(dir ? dir : "", &is_new))
            continue;
        if (flags) {
            seen_info = true;
            for (const char *f = flags; *f && used + 1 < sizeof combined; f++)
                combined[used++] = *f;
            combined[used] = '\0';
        } else if (is_new) {
            seen_info = true;
        }
    }
    sqlite3_reset(stmt);
    if (st || !seen_info)
        return st;
    for (size_t i = 0; i < maildex__flag_tag_count && st == MAILDEX_STATUS_OK; i++) {
        const struct maildex__flag_tag *ft = &maildex__flag_tags[i];
        bool want = (strchr(combined, ft->flag) != NULL) != ft->inverse;
        st = maildex__message_tag(db, message, ft->tag, want, NULL);
    }
    return st;
}
