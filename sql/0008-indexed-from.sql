-- SPDX-License-Identifier: GPL-3.0-or-later
-- The From header of the copy a message was indexed from (its first file indexed, or the file
-- `reindex` read), which notmuch keeps in its database and prints where show names the sender (text's
-- summary line, mbox's "From " line, reply's attribution), whichever copy it shows. A row is kept only
-- for a message a later copy of which has another From (id = messages.id, like texts): the text's
-- "from" column then holds both, one after the other, and a From header may itself hold a line break.
-- Without a row that column is this value.
--
-- Messages indexed before this table existed: a merged From column's first line, the best that can be
-- told (a From with a line break in it comes out cut until `maildex reindex`).
CREATE TABLE indexed_from (
    id     INTEGER PRIMARY KEY,
    value  TEXT NOT NULL
);
INSERT INTO indexed_from(id, value)
    SELECT t.id, substr(t."from", 1, instr(t."from", char(10)) - 1) FROM texts t
    WHERE instr(t."from", char(10)) > 0 AND (SELECT count(*) FROM files f WHERE f.message = t.id) > 1;
