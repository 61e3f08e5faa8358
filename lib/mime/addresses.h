/* SPDX-License-Identifier: GPL-3.0-or-later */
/* addresses.h: the mailboxes of a message's address headers, as notmuch 0.37's `address`
 * command reads them, in the form the store keeps (the `addresses` table, sql/0004-addresses.sql).
 *
 * The form, shared by the parser that writes it and read/addresses.c that reads it without gmime: for each
 * mailbox three NUL-terminated strings, one after the other,
 *     name      the display name as gmime decodes it ("" when there is none)
 *     address   the addr-spec
 *     name-addr gmime's rendering of the pair (internet_address_to_string, unencoded) when it is not
 *               exactly `name <address>` (or `address` for an empty name), else "": a quoted name
 *               ("Doe, John" <j@d>) is the usual case, so most mailboxes store one byte for it.
 * An empty list is zero bytes. The encoder is built into the parser (it needs gmime); the reader,
 * read/addresses.c, is pure string code in the core. */
#ifndef MAILDEX_MESSAGE_ADDRESS_H
#define MAILDEX_MESSAGE_ADDRESS_H

#include <stdbool.h>
#include <stddef.h>

/* The mailboxes of headers (a NULL-terminated array of header values, each already decoded as
 * notmuch decodes a header: gmime's value, then g_mime_utils_header_decode_text), one header after
 * the other in the stored form: each value parsed with gmime's internet_address_list_parse, group
 * members in place of their group, as notmuch's process_address_list walks them. Sets *out to a
 * talloc buffer under ctx (always non-NULL, NUL-terminated one byte past *len) and *len to its
 * length. Returns false only when out of memory. Parser part only (gmime). */
bool maildex__mailboxes_encode(void *ctx, const char *const *headers, char **out, size_t *len);

#endif
