-- 0010: a chat's search document in fixed blocks, so that an append re-tokenizes the chat's last
-- block, not the whole chat (an append to a 10k-entry chat rebuilt 10k entries' text, issue 16).
--
-- A chat's entries are packed greedily, in entry order, into blocks of at most a fixed number of
-- entries and bytes (1,024 and 1 MiB, sqlite/chatdocs_blocks.go). Every block but the last is
-- sealed: a document of its own in chat_fts, listed in chat_blocks with the range of entry pks
-- it holds, written once and left alone by appends. The last block, the head, is the chat's
-- document of 0007: metadata, owner and archived tokens, rowid the chat's last activity
-- (chat_docs), rewritten on every change of the chat. A chat with sealed blocks carries the
-- token "multi" in the owner column of all its documents, so that a search can count the
-- one-document chats from the index alone and match the few long chats apart
-- (sqlite/search_blocks.go).
--
-- Sealed blocks get rowids from 2^62 up, above any chat's activity key (until 2116), so a search
-- walking its matches from the highest rowid down reads the long chats' blocks first, then the
-- heads newest first, and stops early. Their owner column holds the owner tokens but not
-- "archived": archiving rewrites the head only, and a search checks a long chat's archived
-- state on its row.
CREATE TABLE chat_blocks (
	doc     INTEGER PRIMARY KEY,
	chat_pk INTEGER NOT NULL,
	lo      INTEGER NOT NULL,
	hi      INTEGER NOT NULL
);
CREATE INDEX chat_blocks_by_chat ON chat_blocks (chat_pk, hi);

-- full: the chat's sealed blocks are stale too (an entry deleted or edited, the chat deleted or
-- moved to another owner) and are rebuilt with the head; otherwise only the head is.
ALTER TABLE chat_docs_dirty ADD COLUMN full INTEGER NOT NULL DEFAULT 0;

DROP TRIGGER chat_docs_entry_insert;
DROP TRIGGER chat_docs_entry_delete;
DROP TRIGGER chat_docs_entry_update;
DROP TRIGGER chat_docs_chat_insert;
DROP TRIGGER chat_docs_chat_delete;
DROP TRIGGER chat_docs_chat_update;

-- An inserted entry always gets a pk above every existing one (INTEGER PRIMARY KEY, never given
-- by the store), so it lands in the head.
CREATE TRIGGER chat_docs_entry_insert AFTER INSERT ON entries BEGIN
	INSERT OR IGNORE INTO chat_docs_dirty (chat_pk) VALUES (new.chat_pk);
END;
CREATE TRIGGER chat_docs_entry_delete AFTER DELETE ON entries BEGIN
	INSERT INTO chat_docs_dirty (chat_pk, full) VALUES (old.chat_pk, 1) ON CONFLICT (chat_pk) DO UPDATE SET full = 1;
END;
CREATE TRIGGER chat_docs_entry_update AFTER UPDATE OF text, reasoning, tool_name, tool_args, tool_result, chat_pk ON entries BEGIN
	INSERT INTO chat_docs_dirty (chat_pk, full) VALUES (old.chat_pk, 1) ON CONFLICT (chat_pk) DO UPDATE SET full = 1;
	INSERT INTO chat_docs_dirty (chat_pk, full) VALUES (new.chat_pk, 1) ON CONFLICT (chat_pk) DO UPDATE SET full = 1;
END;
CREATE TRIGGER chat_docs_chat_insert AFTER INSERT ON chats BEGIN
	INSERT INTO chat_docs_dirty (chat_pk, full) VALUES (new.pk, 1) ON CONFLICT (chat_pk) DO UPDATE SET full = 1;
END;
CREATE TRIGGER chat_docs_chat_delete AFTER DELETE ON chats BEGIN
	INSERT INTO chat_docs_dirty (chat_pk, full) VALUES (old.pk, 1) ON CONFLICT (chat_pk) DO UPDATE SET full = 1;
END;
-- Metadata, archived state and last activity live in the head only; the owner is in every block.
CREATE TRIGGER chat_docs_chat_update AFTER UPDATE OF title, description, summary, tags, archived_at, last_activity ON chats
WHEN old.title IS NOT new.title OR old.description IS NOT new.description OR old.summary IS NOT new.summary
	OR old.tags IS NOT new.tags OR old.archived_at IS NOT new.archived_at OR old.last_activity IS NOT new.last_activity
BEGIN
	INSERT OR IGNORE INTO chat_docs_dirty (chat_pk) VALUES (new.pk);
END;
CREATE TRIGGER chat_docs_chat_owner AFTER UPDATE OF tenant_id, user_id, agent_id ON chats
WHEN old.tenant_id IS NOT new.tenant_id OR old.user_id IS NOT new.user_id OR old.agent_id IS NOT new.agent_id
BEGIN
	INSERT INTO chat_docs_dirty (chat_pk, full) VALUES (new.pk, 1) ON CONFLICT (chat_pk) DO UPDATE SET full = 1;
END;

-- Every existing chat is rebuilt in blocks on open, in batches with progress, as 0007 built it;
-- searches use the entry index until then.
INSERT INTO chat_docs_dirty (chat_pk, full) SELECT pk, 1 FROM chats WHERE true
	ON CONFLICT (chat_pk) DO UPDATE SET full = 1;
