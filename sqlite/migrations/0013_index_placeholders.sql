-- 0013: redaction placeholders are not words. The full-text indexes (entries_fts, chats_fts,
-- chat_fts) are written with the index text (query.IndexText, registered by the store as the
-- SQL function annals_index_text): every letter and digit of a "[redacted:<kind>]" or
-- "[private]" placeholder shifted into the private use area, so each of its words stays one
-- token in its place but one no search can name. A search for "aws" no longer finds every
-- chat whose AWS key was removed, and since the token count is unchanged, FTS5's snippet()
-- still lines the index up with the stored text it reads (the placeholder shows whole, never
-- marked). The CASE guard keeps the Go call off every text without a placeholder. The
-- substring index (entries_tri) keeps the stored text: the query view searches contents as
-- stored, as lanius does.
--
-- An external-content 'delete' must be given exactly the values that were indexed, so the
-- triggers that take an entry or a chat out of the index pass them through the same function,
-- and the rows already indexed with a placeholder are re-indexed here (their chat documents by
-- the store on open). Writing to these tables now needs the function: change an annals
-- database through annals, not the sqlite3 shell (reading works anywhere).

DROP TRIGGER entries_index_delete;
DROP TRIGGER entries_index_update;
DROP TRIGGER chats_fts_insert;
DROP TRIGGER chats_fts_delete;
DROP TRIGGER chats_fts_update;

CREATE TRIGGER entries_index_delete AFTER DELETE ON entries BEGIN
	INSERT INTO entries_fts (entries_fts, rowid, text, reasoning, tool_name, tool_args, tool_result)
	SELECT 'delete', old.pk,
		CASE WHEN instr(old.text, '[redacted:') OR instr(old.text, '[private]') THEN annals_index_text(old.text) ELSE old.text END,
		CASE WHEN instr(old.reasoning, '[redacted:') OR instr(old.reasoning, '[private]') THEN annals_index_text(old.reasoning) ELSE old.reasoning END,
		CASE WHEN instr(old.tool_name, '[redacted:') OR instr(old.tool_name, '[private]') THEN annals_index_text(old.tool_name) ELSE old.tool_name END,
		CASE WHEN instr(old.tool_args, '[redacted:') OR instr(old.tool_args, '[private]') THEN annals_index_text(old.tool_args) ELSE old.tool_args END,
		CASE WHEN instr(old.tool_result, '[redacted:') OR instr(old.tool_result, '[private]') THEN annals_index_text(old.tool_result) ELSE old.tool_result END
	WHERE NOT EXISTS (SELECT 1 FROM entries_unindexed WHERE pk = old.pk);
	INSERT INTO entries_tri (entries_tri, rowid, text, reasoning, tool_name, tool_args, tool_result)
	SELECT 'delete', old.pk, old.text, old.reasoning, old.tool_name, old.tool_args, old.tool_result
	WHERE NOT EXISTS (SELECT 1 FROM entries_unindexed WHERE pk = old.pk)
		AND NOT EXISTS (SELECT 1 FROM entries_tri_todo WHERE old.pk > done AND old.pk <= last);
	DELETE FROM entries_unindexed WHERE pk = old.pk;
END;

CREATE TRIGGER entries_index_update AFTER UPDATE OF text, reasoning, tool_name, tool_args, tool_result ON entries BEGIN
	INSERT INTO entries_fts (entries_fts, rowid, text, reasoning, tool_name, tool_args, tool_result)
	SELECT 'delete', old.pk,
		CASE WHEN instr(old.text, '[redacted:') OR instr(old.text, '[private]') THEN annals_index_text(old.text) ELSE old.text END,
		CASE WHEN instr(old.reasoning, '[redacted:') OR instr(old.reasoning, '[private]') THEN annals_index_text(old.reasoning) ELSE old.reasoning END,
		CASE WHEN instr(old.tool_name, '[redacted:') OR instr(old.tool_name, '[private]') THEN annals_index_text(old.tool_name) ELSE old.tool_name END,
		CASE WHEN instr(old.tool_args, '[redacted:') OR instr(old.tool_args, '[private]') THEN annals_index_text(old.tool_args) ELSE old.tool_args END,
		CASE WHEN instr(old.tool_result, '[redacted:') OR instr(old.tool_result, '[private]') THEN annals_index_text(old.tool_result) ELSE old.tool_result END
	WHERE NOT EXISTS (SELECT 1 FROM entries_unindexed WHERE pk = old.pk);
	INSERT INTO entries_tri (entries_tri, rowid, text, reasoning, tool_name, tool_args, tool_result)
	SELECT 'delete', old.pk, old.text, old.reasoning, old.tool_name, old.tool_args, old.tool_result
	WHERE NOT EXISTS (SELECT 1 FROM entries_unindexed WHERE pk = old.pk)
		AND NOT EXISTS (SELECT 1 FROM entries_tri_todo WHERE old.pk > done AND old.pk <= last);
	DELETE FROM entries_unindexed WHERE pk = old.pk;
	INSERT OR IGNORE INTO entries_unindexed (pk) VALUES (new.pk);
END;

CREATE TRIGGER chats_fts_insert AFTER INSERT ON chats BEGIN
	INSERT INTO chats_fts (rowid, title, description, summary, tags)
	VALUES (new.pk, CASE WHEN instr(new.title, '[redacted:') OR instr(new.title, '[private]') THEN annals_index_text(new.title) ELSE new.title END, CASE WHEN instr(new.description, '[redacted:') OR instr(new.description, '[private]') THEN annals_index_text(new.description) ELSE new.description END, CASE WHEN instr(new.summary, '[redacted:') OR instr(new.summary, '[private]') THEN annals_index_text(new.summary) ELSE new.summary END, CASE WHEN instr(new.tags, '[redacted:') OR instr(new.tags, '[private]') THEN annals_index_text(new.tags) ELSE new.tags END);
END;
CREATE TRIGGER chats_fts_delete AFTER DELETE ON chats BEGIN
	INSERT INTO chats_fts (chats_fts, rowid, title, description, summary, tags)
	VALUES ('delete', old.pk, CASE WHEN instr(old.title, '[redacted:') OR instr(old.title, '[private]') THEN annals_index_text(old.title) ELSE old.title END, CASE WHEN instr(old.description, '[redacted:') OR instr(old.description, '[private]') THEN annals_index_text(old.description) ELSE old.description END, CASE WHEN instr(old.summary, '[redacted:') OR instr(old.summary, '[private]') THEN annals_index_text(old.summary) ELSE old.summary END, CASE WHEN instr(old.tags, '[redacted:') OR instr(old.tags, '[private]') THEN annals_index_text(old.tags) ELSE old.tags END);
END;
CREATE TRIGGER chats_fts_update AFTER UPDATE OF title, description, summary, tags ON chats BEGIN
	INSERT INTO chats_fts (chats_fts, rowid, title, description, summary, tags)
	VALUES ('delete', old.pk, CASE WHEN instr(old.title, '[redacted:') OR instr(old.title, '[private]') THEN annals_index_text(old.title) ELSE old.title END, CASE WHEN instr(old.description, '[redacted:') OR instr(old.description, '[private]') THEN annals_index_text(old.description) ELSE old.description END, CASE WHEN instr(old.summary, '[redacted:') OR instr(old.summary, '[private]') THEN annals_index_text(old.summary) ELSE old.summary END, CASE WHEN instr(old.tags, '[redacted:') OR instr(old.tags, '[private]') THEN annals_index_text(old.tags) ELSE old.tags END);
	INSERT INTO chats_fts (rowid, title, description, summary, tags)
	VALUES (new.pk, CASE WHEN instr(new.title, '[redacted:') OR instr(new.title, '[private]') THEN annals_index_text(new.title) ELSE new.title END, CASE WHEN instr(new.description, '[redacted:') OR instr(new.description, '[private]') THEN annals_index_text(new.description) ELSE new.description END, CASE WHEN instr(new.summary, '[redacted:') OR instr(new.summary, '[private]') THEN annals_index_text(new.summary) ELSE new.summary END, CASE WHEN instr(new.tags, '[redacted:') OR instr(new.tags, '[private]') THEN annals_index_text(new.tags) ELSE new.tags END);
END;

-- Re-index what was indexed with a placeholder in it: out with the stored values (what was
-- indexed then), in with the index text.
CREATE TEMP TABLE placeholder_entries AS SELECT pk, chat_pk FROM entries
WHERE (instr(text, '[redacted:') OR instr(text, '[private]') OR instr(reasoning, '[redacted:') OR instr(reasoning, '[private]') OR instr(tool_name, '[redacted:') OR instr(tool_name, '[private]') OR instr(tool_args, '[redacted:') OR instr(tool_args, '[private]') OR instr(tool_result, '[redacted:') OR instr(tool_result, '[private]'))
	AND pk NOT IN (SELECT pk FROM entries_unindexed);
INSERT INTO entries_fts (entries_fts, rowid, text, reasoning, tool_name, tool_args, tool_result)
SELECT 'delete', e.pk, e.text, e.reasoning, e.tool_name, e.tool_args, e.tool_result FROM entries e JOIN placeholder_entries p ON p.pk = e.pk;
INSERT INTO entries_fts (rowid, text, reasoning, tool_name, tool_args, tool_result)
SELECT e.pk, annals_index_text(e.text), annals_index_text(e.reasoning), annals_index_text(e.tool_name), annals_index_text(e.tool_args), annals_index_text(e.tool_result)
FROM entries e JOIN placeholder_entries p ON p.pk = e.pk;

CREATE TEMP TABLE placeholder_chats AS SELECT pk FROM chats WHERE instr(title, '[redacted:') OR instr(title, '[private]') OR instr(description, '[redacted:') OR instr(description, '[private]') OR instr(summary, '[redacted:') OR instr(summary, '[private]') OR instr(tags, '[redacted:') OR instr(tags, '[private]');
INSERT INTO chats_fts (chats_fts, rowid, title, description, summary, tags)
SELECT 'delete', c.pk, c.title, c.description, c.summary, c.tags FROM chats c JOIN placeholder_chats p ON p.pk = c.pk;
INSERT INTO chats_fts (rowid, title, description, summary, tags)
SELECT c.pk, annals_index_text(c.title), annals_index_text(c.description), annals_index_text(c.summary), annals_index_text(c.tags)
FROM chats c JOIN placeholder_chats p ON p.pk = c.pk;

-- The chat documents of those chats, sealed blocks too, are rebuilt by the store on open.
INSERT INTO chat_docs_dirty (chat_pk, full)
SELECT chat_pk, 1 FROM (SELECT chat_pk FROM placeholder_entries UNION SELECT pk FROM placeholder_chats) WHERE true
ON CONFLICT (chat_pk) DO UPDATE SET full = 1;

DROP TABLE placeholder_entries;
DROP TABLE placeholder_chats;
