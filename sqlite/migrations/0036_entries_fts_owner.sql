-- 0036: the owner of an entry's chat is a token of the full-text index too, so a tenant's or a
-- user's search walks only its own postings (issue 33 item 3).
--
-- The entry index held every tenant's entries in one doclist per word: a member's search walked
-- the newest matches of every tenant until it had found its own, so a tenant holding 1% of the
-- entries paid for the whole index (at 10M entries its `role:user cache`, 230 matches, read
-- every tenant's matching entries to the end: 344 ms, against 156 for every tenant's). The
-- facets column (0035) now also holds the chat's tenant and, when it has one, its user, each
-- as one token: U+F0102 before the upper-case hex of the tenant id, U+F0103 before the hex of
-- the tenant id, a line feed and the user id (ids hold no control character, so the pair is
-- unambiguous, and a user's token holds that tenant's user alone). A small owner's search ANDs
-- its one narrowest token into its MATCH and FTS5 intersects the doclists: the walk stops
-- after the owner's own matches. The SQL owner condition still decides; the tokens only narrow
-- (search_owner.go). Their bm25 weight is 0 like the other facets, so on a given index a score
-- is the words'; what the tokens change is each row's length (two to four facet tokens now),
-- which bm25 compares to the average.
--
-- A tenant or user id never changes (agent_adopt changes the agent only) and no code moves an
-- entry to another chat, but an index that disagrees with its content is corrupt at its next
-- delete, so both are re-indexed anyway (entries_index_owner; entries_index_update fires on
-- chat_pk too). The delete trigger reads the owner from the chat; a chat's entries are
-- therefore deleted before the chat itself (chats_delete_entries_first), not by the cascade,
-- which runs after the chat row is gone.
--
-- The index is rebuilt from the new view: every entry is tokenized again (docs/BENCHMARKS.md
-- gives the time at 1M entries).
DROP TRIGGER entries_index_delete;
DROP TRIGGER entries_index_update;
DROP TABLE entries_fts;
DROP VIEW entries_fts_content;

CREATE VIEW entries_fts_content AS SELECT e.pk AS pk, e.text AS text, e.reasoning AS reasoning, e.tool_name AS tool_name,
	e.tool_args AS tool_args, e.tool_result AS tool_result,
	char(983296) || e.kind || CASE WHEN e.tool_name = '' THEN '' ELSE ' ' || char(983297) || hex(lower(e.tool_name)) END
		|| ' ' || char(983298) || hex(c.tenant_id) || CASE WHEN c.user_id = '' THEN '' ELSE ' ' || char(983299) || hex(c.tenant_id || char(10) || c.user_id) END AS facets
FROM entries e JOIN chats c ON c.pk = e.chat_pk;

CREATE VIRTUAL TABLE entries_fts USING fts5 (
	text, reasoning, tool_name, tool_args, tool_result, facets,
	content = 'entries_fts_content', content_rowid = 'pk',
	tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TRIGGER chats_delete_entries_first BEFORE DELETE ON chats BEGIN
	DELETE FROM entries WHERE chat_pk = old.pk;
END;

CREATE TRIGGER entries_index_delete AFTER DELETE ON entries BEGIN
	INSERT INTO entries_fts (entries_fts, rowid, text, reasoning, tool_name, tool_args, tool_result, facets)
	SELECT 'delete', old.pk,
		CASE WHEN instr(old.text, '[redacted:') OR instr(old.text, '[private]') THEN annals_index_text(old.text) ELSE old.text END,
		CASE WHEN instr(old.reasoning, '[redacted:') OR instr(old.reasoning, '[private]') THEN annals_index_text(old.reasoning) ELSE old.reasoning END,
		CASE WHEN instr(old.tool_name, '[redacted:') OR instr(old.tool_name, '[private]') THEN annals_index_text(old.tool_name) ELSE old.tool_name END,
		CASE WHEN instr(old.tool_args, '[redacted:') OR instr(old.tool_args, '[private]') THEN annals_index_text(old.tool_args) ELSE old.tool_args END,
		CASE WHEN instr(old.tool_result, '[redacted:') OR instr(old.tool_result, '[private]') THEN annals_index_text(old.tool_result) ELSE old.tool_result END,
		(SELECT char(983296) || old.kind || CASE WHEN old.tool_name = '' THEN '' ELSE ' ' || char(983297) || hex(lower(old.tool_name)) END
		|| ' ' || char(983298) || hex(c.tenant_id) || CASE WHEN c.user_id = '' THEN '' ELSE ' ' || char(983299) || hex(c.tenant_id || char(10) || c.user_id) END
		FROM chats c WHERE c.pk = old.chat_pk)
	WHERE NOT EXISTS (SELECT 1 FROM entries_unindexed WHERE pk = old.pk);
	INSERT INTO entries_tri (entries_tri, rowid, text, reasoning, tool_name, tool_args, tool_result)
	SELECT 'delete', old.pk, old.text, old.reasoning, old.tool_name, old.tool_args, old.tool_result
	WHERE NOT EXISTS (SELECT 1 FROM entries_unindexed WHERE pk = old.pk)
		AND NOT EXISTS (SELECT 1 FROM entries_tri_todo WHERE old.pk > done AND old.pk <= last);
	DELETE FROM entries_unindexed WHERE pk = old.pk;
END;

CREATE TRIGGER entries_index_update AFTER UPDATE OF kind, text, reasoning, tool_name, tool_args, tool_result, chat_pk ON entries BEGIN
	INSERT INTO entries_fts (entries_fts, rowid, text, reasoning, tool_name, tool_args, tool_result, facets)
	SELECT 'delete', old.pk,
		CASE WHEN instr(old.text, '[redacted:') OR instr(old.text, '[private]') THEN annals_index_text(old.text) ELSE old.text END,
		CASE WHEN instr(old.reasoning, '[redacted:') OR instr(old.reasoning, '[private]') THEN annals_index_text(old.reasoning) ELSE old.reasoning END,
		CASE WHEN instr(old.tool_name, '[redacted:') OR instr(old.tool_name, '[private]') THEN annals_index_text(old.tool_name) ELSE old.tool_name END,
		CASE WHEN instr(old.tool_args, '[redacted:') OR instr(old.tool_args, '[private]') THEN annals_index_text(old.tool_args) ELSE old.tool_args END,
		CASE WHEN instr(old.tool_result, '[redacted:') OR instr(old.tool_result, '[private]') THEN annals_index_text(old.tool_result) ELSE old.tool_result END,
		(SELECT char(983296) || old.kind || CASE WHEN old.tool_name = '' THEN '' ELSE ' ' || char(983297) || hex(lower(old.tool_name)) END
		|| ' ' || char(983298) || hex(c.tenant_id) || CASE WHEN c.user_id = '' THEN '' ELSE ' ' || char(983299) || hex(c.tenant_id || char(10) || c.user_id) END
		FROM chats c WHERE c.pk = old.chat_pk)
	WHERE NOT EXISTS (SELECT 1 FROM entries_unindexed WHERE pk = old.pk);
	INSERT INTO entries_tri (entries_tri, rowid, text, reasoning, tool_name, tool_args, tool_result)
	SELECT 'delete', old.pk, old.text, old.reasoning, old.tool_name, old.tool_args, old.tool_result
	WHERE NOT EXISTS (SELECT 1 FROM entries_unindexed WHERE pk = old.pk)
		AND NOT EXISTS (SELECT 1 FROM entries_tri_todo WHERE old.pk > done AND old.pk <= last);
	DELETE FROM entries_unindexed WHERE pk = old.pk;
	INSERT OR IGNORE INTO entries_unindexed (pk) VALUES (new.pk);
END;

-- A change of owner takes the chat's indexed entries out of the index under the old owner and
-- queues them to be indexed again under the new one (the writer indexes the queue before its
-- commit, 0012).
CREATE TRIGGER entries_index_owner AFTER UPDATE OF tenant_id, user_id ON chats
WHEN old.tenant_id IS NOT new.tenant_id OR old.user_id IS NOT new.user_id
BEGIN
	INSERT INTO entries_fts (entries_fts, rowid, text, reasoning, tool_name, tool_args, tool_result, facets)
	SELECT 'delete', e.pk,
		CASE WHEN instr(e.text, '[redacted:') OR instr(e.text, '[private]') THEN annals_index_text(e.text) ELSE e.text END,
		CASE WHEN instr(e.reasoning, '[redacted:') OR instr(e.reasoning, '[private]') THEN annals_index_text(e.reasoning) ELSE e.reasoning END,
		CASE WHEN instr(e.tool_name, '[redacted:') OR instr(e.tool_name, '[private]') THEN annals_index_text(e.tool_name) ELSE e.tool_name END,
		CASE WHEN instr(e.tool_args, '[redacted:') OR instr(e.tool_args, '[private]') THEN annals_index_text(e.tool_args) ELSE e.tool_args END,
		CASE WHEN instr(e.tool_result, '[redacted:') OR instr(e.tool_result, '[private]') THEN annals_index_text(e.tool_result) ELSE e.tool_result END,
		char(983296) || e.kind || CASE WHEN e.tool_name = '' THEN '' ELSE ' ' || char(983297) || hex(lower(e.tool_name)) END
		|| ' ' || char(983298) || hex(old.tenant_id) || CASE WHEN old.user_id = '' THEN '' ELSE ' ' || char(983299) || hex(old.tenant_id || char(10) || old.user_id) END
	FROM entries e WHERE e.chat_pk = old.pk AND NOT EXISTS (SELECT 1 FROM entries_unindexed u WHERE u.pk = e.pk);
	-- The queue indexes both indexes again (0012), so the substring index lets them go too.
	INSERT INTO entries_tri (entries_tri, rowid, text, reasoning, tool_name, tool_args, tool_result)
	SELECT 'delete', e.pk, e.text, e.reasoning, e.tool_name, e.tool_args, e.tool_result
	FROM entries e WHERE e.chat_pk = old.pk AND NOT EXISTS (SELECT 1 FROM entries_unindexed u WHERE u.pk = e.pk)
		AND NOT EXISTS (SELECT 1 FROM entries_tri_todo t WHERE e.pk > t.done AND e.pk <= t.last);
	INSERT OR IGNORE INTO entries_unindexed (pk) SELECT pk FROM entries WHERE chat_pk = old.pk;
END;

-- A queued entry is indexed by the writer before its commit (0012); the rest now.
INSERT INTO entries_fts (rowid, text, reasoning, tool_name, tool_args, tool_result, facets)
SELECT pk, CASE WHEN instr(text, '[redacted:') OR instr(text, '[private]') THEN annals_index_text(text) ELSE text END,
	CASE WHEN instr(reasoning, '[redacted:') OR instr(reasoning, '[private]') THEN annals_index_text(reasoning) ELSE reasoning END,
	CASE WHEN instr(tool_name, '[redacted:') OR instr(tool_name, '[private]') THEN annals_index_text(tool_name) ELSE tool_name END,
	CASE WHEN instr(tool_args, '[redacted:') OR instr(tool_args, '[private]') THEN annals_index_text(tool_args) ELSE tool_args END,
	CASE WHEN instr(tool_result, '[redacted:') OR instr(tool_result, '[private]') THEN annals_index_text(tool_result) ELSE tool_result END,
	facets
FROM entries_fts_content WHERE pk NOT IN (SELECT pk FROM entries_unindexed) ORDER BY pk;

-- The rebuild leaves the index in the many segments of a bulk load; a search seeks each one, so
-- it is merged into one, as after a bulk load (Optimize).
INSERT INTO entries_fts (entries_fts) VALUES ('optimize');
