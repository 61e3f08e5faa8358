-- SPDX-License-Identifier: GPL-3.0-or-later
-- The mailboxes notmuch's `address` command prints, kept so that it never opens a mail file: for each
-- message (id = messages.id, like fts_text) the mailboxes of its From header (sender) and of its To, Cc
-- and Bcc headers in that order (recipients), each header decoded and parsed by gmime as notmuch
-- parses it, in the form lib/mime/addresses.h describes (per mailbox: name, address and gmime's
-- quoted rendering when it differs, each NUL-terminated). Written with the message by `new` and
-- `reindex` from the file that made the message, as notmuch reads From from its stored value and
-- To/Cc/Bcc from the message's file.
--
-- Messages indexed before this table existed have no row: `address` reads their file instead (as
-- notmuch does for a header its database does not store) until `maildex reindex` stores it.
CREATE TABLE addresses (
    id          INTEGER PRIMARY KEY,
    sender      BLOB NOT NULL,
    recipients  BLOB NOT NULL
);
