-- 0009: a trigram index for the query view's text filter, a case-insensitive substring match
-- (reference 003: SQL LIKE over the stored content). LIKE alone reads every entry in scope; the
-- index narrows a needle of three characters or more to the entries holding all of its
-- trigrams, and the store then checks LIKE on those only (sqlite/view_substring.go).
--
-- detail = none: the index answers "holds these trigrams", not where. Positions would let a
-- phrase of trigrams prove adjacency, but the LIKE check proves the match exactly anyway, and
-- without them the index is several times smaller and cheaper to write; columnsize = 0 drops the
-- per-entry token counts, which only ranking reads, and nothing ranks here. case_sensitive 0 folds
-- case for every script, a superset of LIKE's ASCII folding, so no match is lost before the check.
-- External content, kept in step by triggers, as entries_fts is.
CREATE VIRTUAL TABLE entries_tri USING fts5 (
	text, reasoning, tool_name, tool_args, tool_result,
	content = 'entries', content_rowid = 'pk',
	tokenize = 'trigram case_sensitive 0', detail = none, columnsize = 0
);

-- Entries that existed before this migration are indexed on open, in batches with progress
-- (sqlite/view_substring.go), not here in one silent statement: at a million entries that takes
-- a while. The one row says which range is still to do: pks after done, up to last. While it
-- exists searches do not trust the index (they scan with LIKE), and the triggers leave rows of
-- that range alone (a pk of a deleted row may come back), so a row is never removed from the
-- index before it was added, nor added twice.
CREATE TABLE entries_tri_todo (
	done INTEGER NOT NULL,
	last INTEGER NOT NULL
);
INSERT INTO entries_tri_todo (done, last) SELECT 0, max(pk) FROM entries HAVING count(*) > 0;

CREATE TRIGGER entries_tri_insert AFTER INSERT ON entries
WHEN NOT EXISTS (SELECT 1 FROM entries_tri_todo WHERE new.pk > done AND new.pk <= last) BEGIN
	INSERT INTO entries_tri (rowid, text, reasoning, tool_name, tool_args, tool_result)
	VALUES (new.pk, new.text, new.reasoning, new.tool_name, new.tool_args, new.tool_result);
END;
CREATE TRIGGER entries_tri_delete AFTER DELETE ON entries
WHEN NOT EXISTS (SELECT 1 FROM entries_tri_todo WHERE old.pk > done AND old.pk <= last) BEGIN
	INSERT INTO entries_tri (entries_tri, rowid, text, reasoning, tool_name, tool_args, tool_result)
	VALUES ('delete', old.pk, old.text, old.reasoning, old.tool_name, old.tool_args, old.tool_result);
END;
CREATE TRIGGER entries_tri_update AFTER UPDATE OF text, reasoning, tool_name, tool_args, tool_result ON entries
WHEN NOT EXISTS (SELECT 1 FROM entries_tri_todo WHERE old.pk > done AND old.pk <= last) BEGIN
	INSERT INTO entries_tri (entries_tri, rowid, text, reasoning, tool_name, tool_args, tool_result)
	VALUES ('delete', old.pk, old.text, old.reasoning, old.tool_name, old.tool_args, old.tool_result);
	INSERT INTO entries_tri (rowid, text, reasoning, tool_name, tool_args, tool_result)
	VALUES (new.pk, new.text, new.reasoning, new.tool_name, new.tool_args, new.tool_result);
END;
