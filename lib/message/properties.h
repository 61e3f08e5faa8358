/* SPDX-License-Identifier: GPL-3.0-or-later */
/* properties.h: a message's properties as the library's other files need them: read them
 * all, and drop the ones a re-index replaces. Callers hold the transaction for the drop. The public
 * property API (maildex_db_set_properties, maildex_db_remove_properties) is in properties.c. */
#ifndef MAILDEX_MESSAGE_PROPERTIES_H
#define MAILDEX_MESSAGE_PROPERTIES_H

#include "store/maildex-private.h"
#include "mime/parse.h"

/* Sets *out to the properties of the message with key `key`, sorted by key and value, ended by a
 * pair of NULLs, allocated on ctx; *n is their number. */
maildex_status_t maildex__properties_read(maildex_db_t *db, void *ctx, int64_t key, maildex_pair_t **out,
                                          size_t *n);

/* Drops the message's "index.*" properties, as notmuch's re-index does, and with drop_session_keys
 * its "session-key" ones too (reindex --decrypt=false). */
maildex_status_t maildex__properties_reindexed(maildex_db_t *db, int64_t key, bool drop_session_keys);

/* The values of message key's "session-key" properties, NULL-terminated, under ctx (*out is NULL
 * when it has none). Returns MAILDEX_STATUS_OK or a database status. */
maildex_status_t maildex__session_keys(maildex_db_t *db, void *ctx, int64_t key, const char ***out);

/* Adds the properties an indexing of m found (mime/parse.h): its session keys to stash,
 * index.decryption, index.repaired. Writes nothing for a message with none. */
maildex_status_t maildex__properties_indexed(maildex_db_t *db, int64_t key,
                                             const struct maildex__parsed_message *m);

/* Adds one property to message key (nothing when it is there already), as indexing does: without
 * stamping the message's revision. */
maildex_status_t maildex__property_add(maildex_db_t *db, int64_t key, const char *k, const char *v);

#endif
