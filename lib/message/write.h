/* SPDX-License-Identifier: GPL-3.0-or-later */
/* write.h: the writer's operations on one message or one file: insert a parsed message (key, thread,
 * text, tags), add or move a file of a known message, remove a file and with its last file the whole
 * message. Each keeps every table consistent by itself; the caller (index.c) holds the transaction
 * and decides the batching. Nothing here reads mail files or walks directories. */
#ifndef MAILDEX_STORE_H
#define MAILDEX_STORE_H

#include "store/maildex-private.h"
#include "mime/parse.h"
#include "text.h"

/* Where a file lives, as the files table records it. name and flags point into caller memory. */
struct maildex__file_ref {
    int64_t directory;
    int64_t folder;
    const char *name;
    const char *flags; /* Maildir info after ":2,", or NULL */
    int64_t size;
    const char *dir_path; /* the directory's path relative to the mail root */
};

struct maildex__add_options {
    const char *const *new_tags; /* tags of a new message (notmuch's new.tags) */
    bool synchronize_flags;      /* Maildir flags <-> tags */
    bool tags_decide_flags;      /* a file of a known message changes none of its tags (insert: the
                                    message's tags decide its files' flags, as in notmuch) */
    bool hold_text;              /* a new message's prepared text is held and written in key order
                                    with the batch (text-queue.h) */
};

/* The message key for a date: date * 2^20 plus the first free tie-break, so key order is date order
 * (dates are clamped to [0, 2^42)). */
maildex_status_t maildex__store_allocate_key(maildex_db_t *db, int64_t date, int64_t *key);

/* Adds a file with its parsed contents. A Message-ID new to the store becomes a message (*added =
 * true): indexed, threaded, tagged with new_tags (no "unread" when the file has the S flag), the
 * Maildir flags and "attachment", with the properties its parse found (session keys, index.*). A known Message-ID only gains the file (a duplicate, or the new
 * name of a renamed file) and has its flags re-synchronised (unless opts->tags_decide_flags). text,
 * when given, is maildex__store_text_prepare(m), taken over when opts->hold_text; otherwise it is
 * built here. */
maildex_status_t maildex__store_add(maildex_db_t *db, const struct maildex__parsed_message *m,
                                    struct maildex__store_text *text, /* or NULL */
                                    const struct maildex__file_ref *file,
                                    const struct maildex__add_options *opts, bool *added);

/* Points an existing file row at a new directory/name/flags (a rename found without reading the
 * file) and re-synchronises the message's flags. */
maildex_status_t maildex__store_move_file(maildex_db_t *db, int64_t file_id,
                                          const struct maildex__file_ref *to, bool sync_flags);

/* Re-indexes a stored message from a fresh parse of one of its files: text, addresses, subject,
 * author, date (a new date moves the message to a new key, with its files, tags and properties),
 * parent, thread links and the "attachment" tag; every other tag stays, and every property but the
 * "index.*" ones (notmuch's rule), which become what this parse found, and with drop_session_keys
 * the "session-key" ones. *new_key is the message's key afterwards. */
maildex_status_t maildex__store_reindex(maildex_db_t *db, int64_t key,
                                        const struct maildex__parsed_message *m, bool drop_session_keys,
                                        int64_t *new_key);

/* Removes one file. When it was the message's last file the message leaves the store completely
 * (text, tags, properties; a ghost keeps its place in a thread that has other messages):
 * *message_removed = true. Otherwise it is a rename and the remaining files' flags decide. */
maildex_status_t maildex__store_remove_file(maildex_db_t *db, int64_t file_id, bool sync_flags,
                                            bool *message_removed);

/* Sets *id to the directories row of path (relative to the mail root, "" for the root) and *folder
 * (may be NULL) to its folder, creating them and every missing parent first: the rows `new` would
 * make for that directory, listed again by the next `new` (mtime 0). */
maildex_status_t maildex__store_directory(maildex_db_t *db, const char *path, int64_t *id,
                                          int64_t *folder);

/* Sets *id to the file row of name in directory, or to 0 when there is none. */
maildex_status_t maildex__store_file_find(maildex_db_t *db, int64_t directory, const char *name,
                                          int64_t *id);

/* Sets *last to whether file_id is the only file of its message (removing it would remove the
 * message, and its tags). */
maildex_status_t maildex__store_file_is_last(maildex_db_t *db, int64_t file_id, bool *last);

#endif
