/* message-properties.h: a message's properties as the library's other files need them: read them
 * all, and drop the ones a re-index replaces. Callers hold the transaction for the drop. The public
 * property API (maildex_db_set_properties, maildex_db_remove_properties) is in message-properties.c. */
#ifndef MAILDEX_MESSAGE_PROPERTIES_H
#define MAILDEX_MESSAGE_PROPERTIES_H

#include "maildex-private.h"

/* Sets *out to the properties of the message with key `key`, sorted by key and value, ended by a
 * pair of NULLs, allocated on ctx; *n is their number. */
maildex_status_t maildex__properties_read(maildex_db_t *db, void *ctx, int64_t key, maildex_pair_t **out,
                                          size_t *n);

/* Drops the message's "index.*" properties, as notmuch's re-index does. */
maildex_status_t maildex__properties_reindexed(maildex_db_t *db, int64_t key);

#endif
