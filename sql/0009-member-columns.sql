-- SPDX-License-Identifier: GPL-3.0-or-later
-- What a thread summary reads of each member beside its row: its tags (their ids joined by commas in
-- the order of message_tags_message, ascending; NULL for none) and its number of files. A summary of
-- 50 threads reads every member of each (hundreds of messages), and two index ranges more per member
-- were half the work of `search --limit=50` (lib/read/threads.c). Triggers keep both columns from
-- the tables they summarise, each recomputed from those tables, so that every writer (new, insert,
-- tag, restore, reindex, the renames, a message's new key) keeps them without knowing they exist,
-- whatever order it writes its rows in.
ALTER TABLE messages ADD COLUMN tag_ids TEXT;
ALTER TABLE messages ADD COLUMN nfiles INTEGER NOT NULL DEFAULT 0;
UPDATE messages SET tag_ids = (SELECT group_concat(tag) FROM message_tags WHERE message = messages.id),
                    nfiles = (SELECT count(*) FROM files WHERE message = messages.id);

-- A message row made, or given a new key, after its tags or files.
CREATE TRIGGER messages_member_insert AFTER INSERT ON messages
WHEN EXISTS (SELECT 1 FROM message_tags WHERE message = NEW.id) OR EXISTS (SELECT 1 FROM files WHERE message = NEW.id)
BEGIN
    UPDATE messages SET tag_ids = (SELECT group_concat(tag) FROM message_tags WHERE message = NEW.id),
                        nfiles = (SELECT count(*) FROM files WHERE message = NEW.id)
    WHERE id = NEW.id;
END;
CREATE TRIGGER messages_member_rekey AFTER UPDATE OF id ON messages
BEGIN
    UPDATE messages SET tag_ids = (SELECT group_concat(tag) FROM message_tags WHERE message = NEW.id),
                        nfiles = (SELECT count(*) FROM files WHERE message = NEW.id)
    WHERE id = NEW.id;
END;

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

CREATE TRIGGER files_member_insert AFTER INSERT ON files
BEGIN
    UPDATE messages SET nfiles = (SELECT count(*) FROM files WHERE message = NEW.message) WHERE id = NEW.message;
END;
CREATE TRIGGER files_member_delete AFTER DELETE ON files
BEGIN
    UPDATE messages SET nfiles = (SELECT count(*) FROM files WHERE message = OLD.message) WHERE id = OLD.message;
END;
CREATE TRIGGER files_member_update AFTER UPDATE OF message ON files
BEGIN
    UPDATE messages SET nfiles = (SELECT count(*) FROM files WHERE message = messages.id)
    WHERE id IN (OLD.message, NEW.message);
END;
