-- SPDX-License-Identifier: GPL-3.0-or-later
-- The text kept for exact deletes (fts_text, 0001; its fields column, 0006) with its body deflated: stored as it was, that copy
-- was 40% of the database. The table becomes `texts`, whose body is a BLOB when packed (a 4-byte
-- length, then zlib's stream: lib/sqlext/text-pack.c) and TEXT when short; `fts_text`, the name the FTS5 table
-- reads its content from, becomes a view that unpacks, so that table, its index and every reader of
-- fts_text stay as they were. maildex_text() and maildex_text_pack() are registered on every
-- connection, as the tokenizer is.
ALTER TABLE fts_text RENAME TO texts;
UPDATE texts SET body = maildex_text_pack(body);
CREATE VIEW fts_text(id, subject, "from", "to", body, attachment, mimetype, fields) AS
    SELECT id, subject, "from", "to", maildex_text(body), attachment, mimetype, fields FROM texts;
