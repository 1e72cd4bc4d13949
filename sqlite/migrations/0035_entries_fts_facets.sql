-- 0035: an entry's kind and tool are tokens of the full-text index, so a role: or tool: search is
-- one FTS5 match that stops after its page (issue 33 item 2).
--
-- A chat or entry search under role: or tool: walked the newest entries matching its words and
-- looked each one up in the entry filter index (0025) for its kind and tool until it had enough:
-- `role:user cache` at 1M entries looked up nearly all of the 50,000 entries holding `cache` to
-- find the few thousand the user wrote. The index now holds, in a sixth column (facets), one
-- token for the entry's kind and one for its lower-cased tool name, and the searches add them to
-- their MATCH (`... AND facets : "<kind token>"`): FTS5 intersects the two doclists itself and
-- hands over only the entries that pass. The SQL filter on kind and tool is still applied to the
-- rows it returns, so the tokens only narrow.
--
-- The tokens cannot be typed: each starts with a character of the supplementary private use area
-- (U+F0100 before the kind, U+F0101 before the hex of the tool name, so any tool name is one
-- token), and the query language splits words on everything but letters, digits and marks, as
-- for redaction placeholders (0013). The searches weigh the column 0 in bm25, so a score is still
-- that of the words; what changes is the row's length, one or two tokens more, which bm25
-- compares to the average (both grow alike).
--
-- FTS5 reads an external-content row by the index's column names, so its content is now a view
-- of entries with the facets computed (entries_fts_content). The index is rebuilt from it:
-- every entry is tokenized again (docs/BENCHMARKS.md gives the time at 1M entries).
DROP TRIGGER entries_index_delete;
DROP TRIGGER entries_index_update;
DROP TABLE entries_fts;

CREATE VIEW entries_fts_content AS SELECT pk, text, reasoning, tool_name, tool_args, tool_result,
	char(983296) || kind || CASE WHEN tool_name = '' THEN '' ELSE ' ' || char(983297) || hex(lower(tool_name)) END AS facets
FROM entries;

CREATE VIRTUAL TABLE entries_fts USING fts5 (
	text, reasoning, tool_name, tool_args, tool_result, facets,
	content = 'entries_fts_content', content_rowid = 'pk',
	tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TRIGGER entries_index_delete AFTER DELETE ON entries BEGIN
	INSERT INTO entries_fts (entries_fts, rowid, text, reasoning, tool_name, tool_args, tool_result, facets)
	SELECT 'delete', old.pk,
		CASE WHEN instr(old.text, '[redacted:') OR instr(old.text, '[private]') THEN annals_index_text(old.text) ELSE old.text END,
		CASE WHEN instr(old.reasoning, '[redacted:') OR instr(old.reasoning, '[private]') THEN annals_index_text(old.reasoning) ELSE old.reasoning END,
		CASE WHEN instr(old.tool_name, '[redacted:') OR instr(old.tool_name, '[private]') THEN annals_index_text(old.tool_name) ELSE old.tool_name END,
		CASE WHEN instr(old.tool_args, '[redacted:') OR instr(old.tool_args, '[private]') THEN annals_index_text(old.tool_args) ELSE old.tool_args END,
		CASE WHEN instr(old.tool_result, '[redacted:') OR instr(old.tool_result, '[private]') THEN annals_index_text(old.tool_result) ELSE old.tool_result END,
		char(983296) || old.kind || CASE WHEN old.tool_name = '' THEN '' ELSE ' ' || char(983297) || hex(lower(old.tool_name)) END
	WHERE NOT EXISTS (SELECT 1 FROM entries_unindexed WHERE pk = old.pk);
	INSERT INTO entries_tri (entries_tri, rowid, text, reasoning, tool_name, tool_args, tool_result)
	SELECT 'delete', old.pk, old.text, old.reasoning, old.tool_name, old.tool_args, old.tool_result
	WHERE NOT EXISTS (SELECT 1 FROM entries_unindexed WHERE pk = old.pk)
		AND NOT EXISTS (SELECT 1 FROM entries_tri_todo WHERE old.pk > done AND old.pk <= last);
	DELETE FROM entries_unindexed WHERE pk = old.pk;
END;

CREATE TRIGGER entries_index_update AFTER UPDATE OF kind, text, reasoning, tool_name, tool_args, tool_result ON entries BEGIN
	INSERT INTO entries_fts (entries_fts, rowid, text, reasoning, tool_name, tool_args, tool_result, facets)
	SELECT 'delete', old.pk,
		CASE WHEN instr(old.text, '[redacted:') OR instr(old.text, '[private]') THEN annals_index_text(old.text) ELSE old.text END,
		CASE WHEN instr(old.reasoning, '[redacted:') OR instr(old.reasoning, '[private]') THEN annals_index_text(old.reasoning) ELSE old.reasoning END,
		CASE WHEN instr(old.tool_name, '[redacted:') OR instr(old.tool_name, '[private]') THEN annals_index_text(old.tool_name) ELSE old.tool_name END,
		CASE WHEN instr(old.tool_args, '[redacted:') OR instr(old.tool_args, '[private]') THEN annals_index_text(old.tool_args) ELSE old.tool_args END,
		CASE WHEN instr(old.tool_result, '[redacted:') OR instr(old.tool_result, '[private]') THEN annals_index_text(old.tool_result) ELSE old.tool_result END,
		char(983296) || old.kind || CASE WHEN old.tool_name = '' THEN '' ELSE ' ' || char(983297) || hex(lower(old.tool_name)) END
	WHERE NOT EXISTS (SELECT 1 FROM entries_unindexed WHERE pk = old.pk);
	INSERT INTO entries_tri (entries_tri, rowid, text, reasoning, tool_name, tool_args, tool_result)
	SELECT 'delete', old.pk, old.text, old.reasoning, old.tool_name, old.tool_args, old.tool_result
	WHERE NOT EXISTS (SELECT 1 FROM entries_unindexed WHERE pk = old.pk)
		AND NOT EXISTS (SELECT 1 FROM entries_tri_todo WHERE old.pk > done AND old.pk <= last);
	DELETE FROM entries_unindexed WHERE pk = old.pk;
	INSERT OR IGNORE INTO entries_unindexed (pk) VALUES (new.pk);
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
