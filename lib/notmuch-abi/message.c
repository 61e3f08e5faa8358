/* SPDX-License-Identifier: GPL-3.0-or-later */
/* message.c: a notmuch message object -- what it says of itself (ids, date, flags, headers, files,
 * tags) -- on maildex's messages. A query's or a thread's message copies what maildex handed out
 * with it; a message found by id reads its metadata on first use, as notmuch does, so that on a
 * closed handle whatever was never read is an error (NULL, 0, -1) and whatever was read stays. What
 * is read later (properties, headers, lists of a found message) comes through maildex's message for
 * the same Message-ID (nm_message_source). Tag changes are message-tags.c's. */
#include "abi.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static void drop_found(notmuch_message_t *msg)
{
    if (msg->found && nm_live(msg->db, msg->found_generation))
        maildex_message_destroy(msg->found);
    msg->found = NULL;
}

static int message_destructor(notmuch_message_t *msg)
{
    drop_found(msg);
    return 0;
}

void nm_message_forget(notmuch_message_t *msg, bool lists)
{
    drop_found(msg);
    talloc_free(msg->properties);
    msg->properties = NULL;
    if (lists) {
        talloc_free(msg->tags);
        talloc_free(msg->files);
        msg->tags = msg->files = NULL;
    }
}

notmuch_message_t *nm_message_new(void *ctx, notmuch_database_t *db, const char *message_id, bool loaded)
{
    notmuch_message_t *msg = talloc_zero(ctx, notmuch_message_t);

    if (msg == NULL)
        return NULL;
    msg->db = db;
    msg->id = talloc_strdup(msg, message_id);
    msg->loaded = loaded;
    talloc_set_destructor(msg, message_destructor);
    return msg;
}

void nm_message_fill(notmuch_message_t *msg, maildex_message_t *m, bool in_thread)
{
    msg->thread_id = talloc_asprintf(msg, "%016" PRIx64, maildex_message_thread(m));
    msg->date = (time_t) maildex_message_date(m);
    msg->ghost = maildex_message_ghost(m);
    msg->flags = (in_thread && maildex_message_matched(m) ? 1u << NOTMUCH_MESSAGE_FLAG_MATCH : 0) |
                 (maildex_message_excluded(m) ? 1u << NOTMUCH_MESSAGE_FLAG_EXCLUDED : 0) |
                 (msg->ghost ? 1u << NOTMUCH_MESSAGE_FLAG_GHOST : 0);
}

/* A NULL-terminated copy of list, on ctx. */
static char **copy_strings(void *ctx, const char *const *list)
{
    size_t n = 0;
    char **out;

    while (list[n])
        n++;
    out = talloc_array(ctx, char *, n + 1);
    for (size_t i = 0; out && i < n; i++)
        out[i] = talloc_strdup(out, list[i]);
    if (out)
        out[n] = NULL;
    return out;
}

notmuch_status_t nm_message_copy_lists(notmuch_message_t *msg, maildex_message_t *m)
{
    const char *const *tags, *const *files;
    maildex_status_t st = maildex_message_tags(m, &tags);

    if (st == MAILDEX_STATUS_OK)
        st = maildex_message_files(m, &files);
    if (st != MAILDEX_STATUS_OK)
        return nm_error(msg->db, st, "reading a message");
    talloc_free(msg->tags);
    talloc_free(msg->files);
    msg->tags = copy_strings(msg, tags);
    msg->files = copy_strings(msg, files);
    return msg->tags && msg->files ? NOTMUCH_STATUS_SUCCESS : NOTMUCH_STATUS_OUT_OF_MEMORY;
}

notmuch_status_t nm_message_source(notmuch_message_t *msg, const char *what, maildex_message_t **out)
{
    maildex_status_t st;

    *out = NULL;
    if (msg->found && nm_live(msg->db, msg->found_generation)) {
        *out = msg->found;
        return NOTMUCH_STATUS_SUCCESS;
    }
    msg->found = NULL;
    if (nm_readable(msg->db, what))
        return NOTMUCH_STATUS_XAPIAN_EXCEPTION;
    st = maildex_db_find_message(msg->db->mdb, msg->id, &msg->found);
    if (st != MAILDEX_STATUS_OK)
        return nm_error(msg->db, st, what);
    msg->found_generation = msg->db->generation;
    *out = msg->found;
    return NOTMUCH_STATUS_SUCCESS;
}

notmuch_status_t nm_message_load(notmuch_message_t *msg)
{
    maildex_message_t *m;
    notmuch_status_t st;

    if (msg->loaded)
        return NOTMUCH_STATUS_SUCCESS;
    st = nm_message_source(msg, "reading a message", &m);
    if (st == NOTMUCH_STATUS_SUCCESS && m)
        nm_message_fill(msg, m, false);
    msg->loaded = st == NOTMUCH_STATUS_SUCCESS;
    return st;
}

/* Reads the tags (tags true) or files of msg when it has none yet. */
static notmuch_status_t load_list(notmuch_message_t *msg, bool tags)
{
    const char *const *list;
    maildex_message_t *m;
    maildex_status_t mst;
    notmuch_status_t st;

    if ((tags ? msg->tags : msg->files) != NULL)
        return NOTMUCH_STATUS_SUCCESS;
    st = nm_message_load(msg);
    if (st == NOTMUCH_STATUS_SUCCESS)
        st = nm_message_source(msg, tags ? "getting tags" : "getting filenames", &m);
    if (st != NOTMUCH_STATUS_SUCCESS)
        return st;
    if (m == NULL) { /* gone from the store meanwhile: nothing */
        static const char *const none[] = {NULL};
        list = none;
    } else if ((mst = tags ? maildex_message_tags(m, &list) : maildex_message_files(m, &list)) != MAILDEX_STATUS_OK) {
        return nm_error(msg->db, mst, tags ? "getting tags" : "getting filenames");
    }
    if (tags)
        msg->tags = copy_strings(msg, list);
    else
        msg->files = copy_strings(msg, list);
    return (tags ? msg->tags : msg->files) ? NOTMUCH_STATUS_SUCCESS : NOTMUCH_STATUS_OUT_OF_MEMORY;
}

notmuch_status_t nm_message_load_tags(notmuch_message_t *msg)
{
    return load_list(msg, true);
}

notmuch_status_t nm_message_load_files(notmuch_message_t *msg)
{
    return load_list(msg, false);
}

notmuch_database_t *notmuch_message_get_database(const notmuch_message_t *msg)
{
    return msg->db;
}

const char *notmuch_message_get_message_id(notmuch_message_t *msg)
{
    return nm_message_load(msg) ? NULL : msg->id;
}

const char *notmuch_message_get_thread_id(notmuch_message_t *msg)
{
    return nm_message_load(msg) ? NULL : msg->thread_id;
}

time_t notmuch_message_get_date(notmuch_message_t *msg)
{
    return nm_message_load(msg) ? 0 : msg->date;
}

notmuch_messages_t *notmuch_message_get_replies(notmuch_message_t *msg)
{
    /* NULL for a message that does not come from a thread, or has no replies: notmuch's answer. */
    if (msg->nreplies == 0)
        return NULL;
    return nm_messages_list(msg, msg->db, msg->replies, msg->nreplies);
}

int notmuch_message_count_files(notmuch_message_t *msg)
{
    int n = 0;

    if (nm_message_load_files(msg))
        return -1;
    while (msg->files[n])
        n++;
    return n;
}

const char *notmuch_message_get_filename(notmuch_message_t *msg)
{
    if (nm_message_load_files(msg))
        return NULL;
    return msg->files[0];
}

notmuch_filenames_t *notmuch_message_get_filenames(notmuch_message_t *msg)
{
    if (nm_message_load_files(msg))
        return NULL;
    return nm_filenames_new(msg, (const char *const *) msg->files, (size_t) -1);
}

notmuch_tags_t *notmuch_message_get_tags(notmuch_message_t *msg)
{
    if (nm_message_load_tags(msg))
        return NULL;
    return nm_tags_new(msg, (const char *const *) msg->tags, (size_t) -1);
}

/* ---- flags --------------------------------------------------------------------------------------------- */

notmuch_status_t notmuch_message_get_flag_st(notmuch_message_t *msg, notmuch_message_flag_t flag,
                                             notmuch_bool_t *is_set)
{
    if (is_set == NULL)
        return NOTMUCH_STATUS_NULL_POINTER;
    /* match and excluded are the query's; ghost is the store's, read with the metadata */
    if (flag == NOTMUCH_MESSAGE_FLAG_GHOST && nm_message_load(msg))
        return NOTMUCH_STATUS_XAPIAN_EXCEPTION;
    *is_set = (msg->flags & (1u << flag)) != 0;
    return NOTMUCH_STATUS_SUCCESS;
}

notmuch_bool_t notmuch_message_get_flag(notmuch_message_t *msg, notmuch_message_flag_t flag)
{
    notmuch_bool_t is_set = FALSE;

    return notmuch_message_get_flag_st(msg, flag, &is_set) ? FALSE : is_set;
}

void notmuch_message_set_flag(notmuch_message_t *msg, notmuch_message_flag_t flag, notmuch_bool_t value)
{
    if (value)
        msg->flags |= 1u << flag;
    else
        msg->flags &= ~(1u << flag);
}

notmuch_status_t notmuch_message_has_maildir_flag_st(notmuch_message_t *msg, char flag, notmuch_bool_t *is_set)
{
    const char *flags = NULL;
    maildex_message_t *m;
    maildex_status_t mst;
    notmuch_status_t st;

    if (is_set == NULL)
        return NOTMUCH_STATUS_NULL_POINTER;
    st = nm_message_source(msg, "reading maildir flags", &m);
    if (st != NOTMUCH_STATUS_SUCCESS)
        return st;
    if (m && (mst = maildex_message_maildir_flags(m, &flags)) != MAILDEX_STATUS_OK)
        return nm_error(msg->db, mst, "reading maildir flags");
    *is_set = flags && strchr(flags, flag) != NULL;
    return NOTMUCH_STATUS_SUCCESS;
}

notmuch_bool_t notmuch_message_has_maildir_flag(notmuch_message_t *msg, char flag)
{
    notmuch_bool_t is_set = FALSE;

    return notmuch_message_has_maildir_flag_st(msg, flag, &is_set) ? FALSE : is_set;
}

/* ---- headers ------------------------------------------------------------------------------------------- */

const char *notmuch_message_get_header(notmuch_message_t *msg, const char *header)
{
    const char *value = nm_map_get(msg->headers, header);
    maildex_message_t *m;
    maildex_status_t st;

    if (value)
        return value;
    if (nm_message_source(msg, "reading a header", &m) != NOTMUCH_STATUS_SUCCESS || m == NULL)
        return NULL;
    st = maildex_message_header(m, header, &value);
    if (st != MAILDEX_STATUS_OK) {
        nm_error(msg->db, st, "reading a header");
        return NULL;
    }
    if (msg->headers == NULL)
        msg->headers = nm_map_create(msg);
    nm_map_set(msg->headers, header, value);
    return nm_map_get(msg->headers, header);
}

void notmuch_message_destroy(notmuch_message_t *msg)
{
    talloc_free(msg);
}
