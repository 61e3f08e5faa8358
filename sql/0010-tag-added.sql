-- SPDX-License-Identifier: GPL-3.0-or-later
-- When each tag was put on each message: message_tags.added, seconds since the epoch, set by the
-- column's default whenever a row is inserted (new.tags, `tag`, restore, a Maildir flag), so that no
-- writer has to know the column exists; a re-key or a rename of its message keeps it.
-- `purge --older-than=AGE` reads it (lib/index/purge.c): a message tagged deleted yesterday is kept
-- by --older-than=30d whatever its Date says. Nothing stored before answered that: messages.lastmod
-- is a revision (a counter, not a time) of the message's last change of any kind, and a tag has no
-- change of its own recorded. Rows that exist when this runs get the time it runs, not 0: their
-- real age is unknown, and counting it from now makes --older-than keep them rather than purge them.
--
-- SQLite adds no column with a non-constant default, so the table is made again and renamed into
-- place. legacy_alter_table keeps the rename from checking the triggers of messages (sql/0009), which
-- name message_tags while it does not exist; the triggers on message_tags itself went with the old
-- table and are made again, as 0009 made them.
PRAGMA legacy_alter_table = ON;
CREATE TABLE message_tags_added (
    tag      INTEGER NOT NULL,
    message  INTEGER NOT NULL,
    added    INTEGER NOT NULL DEFAULT (CAST(strftime('%s', 'now') AS INTEGER)),
    PRIMARY KEY (tag, message)
) WITHOUT ROWID;
INSERT INTO message_tags_added(tag, message) SELECT tag, message FROM message_tags;
DROP TABLE message_tags;
ALTER TABLE message_tags_added RENAME TO message_tags;
PRAGMA legacy_alter_table = OFF;
CREATE INDEX message_tags_message ON message_tags(message, tag);

CREATE TRIGGER message_tags_member_insert AFTER INSERT ON message_tags
BEGIN
    UPDATE messages SET tag_ids = (SELECT group_concat(tag) FROM message_tags WHERE message = NEW.message)
    WHERE id = NEW.message;
END;
CREATE TRIGGER message_tags_member_delete AFTER DELETE ON message_tags
BEGIN
    UPDATE messages SET tag_ids = (SELECT group_concat(tag) FROM message_tags WHERE message = OLD.message)
    WHERE id = OLD.message;
END;
CREATE TRIGGER message_tags_member_update AFTER UPDATE ON message_tags
BEGIN
    UPDATE messages SET tag_ids = (SELECT group_concat(tag) FROM message_tags WHERE message = messages.id)
    WHERE id IN (OLD.message, NEW.message);
END;
