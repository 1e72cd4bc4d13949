-- 0022: a chat's transcript revision (annals.Chat.Revision): raised by the number of entries
-- every append adds and every truncation removes, never lowered, so a rewind followed by as
-- many new entries is a new revision although the entry count is the same. The digest state's
-- digested_entries now holds the revision a digest was computed from; starting the revision at
-- the entry count keeps every stored digest state meaning what it meant.
ALTER TABLE chats ADD COLUMN revision bigint NOT NULL DEFAULT 0;
UPDATE chats SET revision = entry_count WHERE entry_count <> 0;
