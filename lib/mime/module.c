/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The body of maildex-mime.so, the module the command line loads to parse mail (see mime.h). It
 * exports one symbol, the table of parser entry points, which starts with the ABI version and sizes
 * the loader checks. */
#include "mime.h"

const struct maildex__mime_ops maildex_mime_ops = MAILDEX__MIME_OPS_INIT;
