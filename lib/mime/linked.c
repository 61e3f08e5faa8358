/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The message parser linked in (see mime.h): the shared library and the tests use this one. */
#include "mime.h"

static const struct maildex__mime_ops linked = MAILDEX__MIME_OPS_INIT;

maildex_status_t maildex__mime(maildex_db_t *db, const struct maildex__mime_ops **ops)
{
    (void) db;
    maildex__message_parse_init();
    *ops = &linked;
    return MAILDEX_STATUS_OK;
}
