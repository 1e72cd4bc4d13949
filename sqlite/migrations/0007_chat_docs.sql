-- 0007: one full-text document per chat, so that a chat search ranks chats (10k documents at 1M
-- entries) instead of every matching entry, and can stop early.
--
-- chat_fts holds, per chat, its metadata and the concatenation of its entries' fields (entries
-- separated by a private-use token, so that a phrase cannot span two entries), plus an owner
-- column of reserved tokens (t<hex tenant> u<hex user> a<hex agent>, and "archived") that a
-- search adds to its MATCH, so that FTS5 intersects the query with the caller's own documents
-- before anything is scored. The table is contentless (the text lives once, in entries) with
-- contentless_delete, so a document is replaced by rowid without its old text.
--
-- A document's rowid is its chat's last activity (unix nanoseconds, moved down past a collision),
-- kept in chat_docs: walking a MATCH in descending rowid is walking chats newest first, with no
-- sort and no lookup of the chats that are not returned.
--
-- Triggers only mark a chat dirty (cheap, per row); the store rebuilds the dirty chats' documents
-- once per write transaction, just before it commits (sqlite/chatdocs.go), so an append of a
-- thousand entries re-tokenizes the chat once, not a thousand times. Existing chats are marked
-- here and built on open, in batches.
CREATE VIRTUAL TABLE chat_fts USING fts5 (
	title, description, summary, tags, text, reasoning, tool_name, tool_args, tool_result, owner,
	content = '', contentless_delete = 1,
	tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TABLE chat_docs (
	doc     INTEGER PRIMARY KEY,
	chat_pk INTEGER NOT NULL UNIQUE
);
CREATE TABLE chat_docs_dirty (
	chat_pk INTEGER PRIMARY KEY
);

CREATE TRIGGER chat_docs_entry_insert AFTER INSERT ON entries BEGIN
	INSERT OR IGNORE INTO chat_docs_dirty (chat_pk) VALUES (new.chat_pk);
END;
CREATE TRIGGER chat_docs_entry_delete AFTER DELETE ON entries BEGIN
	INSERT OR IGNORE INTO chat_docs_dirty (chat_pk) VALUES (old.chat_pk);
END;
CREATE TRIGGER chat_docs_entry_update AFTER UPDATE OF text, reasoning, tool_name, tool_args, tool_result, chat_pk ON entries BEGIN
	INSERT OR IGNORE INTO chat_docs_dirty (chat_pk) VALUES (old.chat_pk);
	INSERT OR IGNORE INTO chat_docs_dirty (chat_pk) VALUES (new.chat_pk);
END;
CREATE TRIGGER chat_docs_chat_insert AFTER INSERT ON chats BEGIN
	INSERT OR IGNORE INTO chat_docs_dirty (chat_pk) VALUES (new.pk);
END;
CREATE TRIGGER chat_docs_chat_delete AFTER DELETE ON chats BEGIN
	INSERT OR IGNORE INTO chat_docs_dirty (chat_pk) VALUES (old.pk);
END;
-- Counters change on every append and run; only what the document holds (or its rowid, the last
-- activity) makes it stale.
CREATE TRIGGER chat_docs_chat_update AFTER UPDATE OF title, description, summary, tags, archived_at, last_activity, tenant_id, user_id, agent_id ON chats
WHEN old.title IS NOT new.title OR old.description IS NOT new.description OR old.summary IS NOT new.summary
	OR old.tags IS NOT new.tags OR old.archived_at IS NOT new.archived_at OR old.last_activity IS NOT new.last_activity
	OR old.tenant_id IS NOT new.tenant_id OR old.user_id IS NOT new.user_id OR old.agent_id IS NOT new.agent_id
BEGIN
	INSERT OR IGNORE INTO chat_docs_dirty (chat_pk) VALUES (new.pk);
END;

INSERT INTO chat_docs_dirty (chat_pk) SELECT pk FROM chats;
