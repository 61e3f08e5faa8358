/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tags.h: a message's tags as the writer changes them. Keeps tags.messages equal to the
 * number of message_tags rows (the planner reads it to choose the driving index) and stamps
 * messages.lastmod. tags.messages changes are kept in memory during a transaction and written once
 * per tag before it commits (a participant in the handle's transactions); a rollback forgets them
 * and the cached tag ids. Callers hold the write transaction. The public tagging API
 * (tag/tag-query.c) builds on these. */
#ifndef MAILDEX_MESSAGE_TAGS_H
#define MAILDEX_MESSAGE_TAGS_H

#include "store/maildex-private.h"

/* Sets *id to the tag's id, creating the tag when create is true; 0 when it does not exist. */
maildex_status_t maildex__tag_lookup(maildex_db_t *db, const char *name, bool create, int64_t *id);

/* Adds (add = true) or removes a tag; *changed (may be NULL) tells whether anything changed. */
maildex_status_t maildex__message_tag(maildex_db_t *db, int64_t message, const char *name, bool add,
                                      bool *changed);

/* Tags a message that was just inserted (no tag yet, lastmod already current): one insert per tag. */
maildex_status_t maildex__message_tag_new(maildex_db_t *db, int64_t message,
                                          const char *const *tags, size_t n);

/* Removes every tag of a message (before the message itself is deleted). */
maildex_status_t maildex__message_untag_all(maildex_db_t *db, int64_t message);

/* notmuch's maildir_flags_to_tags: the union of the ":2," flags of the message's files that sit in a
 * Maildir's cur/ or new/ decides draft, flagged, passed, replied and unread. A file in new/ without
 * info counts as "no flags"; when no file has Maildir info, the tags are left alone. */
maildex_status_t maildex__message_flags_to_tags(maildex_db_t *db, int64_t message);

/* The ":2," flags of the message's files in a Maildir's cur/ or new/, concatenated into combined (size
 * bytes, NUL-terminated; the rest is cut); *seen_info says whether any file counts (one with info, or
 * one in new/ without it: notmuch's "default flags"). */
maildex_status_t maildex__message_maildir_flags(maildex_db_t *db, int64_t message, char *combined, size_t size,
                                                bool *seen_info);

#endif
