-- SPDX-License-Identifier: GPL-3.0-or-later
-- The number of messages, kept exact by the writer (one update per transaction), so that `count '*'`
-- and notmuch-hello's totals cost the same at any store size instead of a scan of the messages table.
INSERT OR REPLACE INTO meta(key, value) SELECT 'messages', count(*) FROM messages;
