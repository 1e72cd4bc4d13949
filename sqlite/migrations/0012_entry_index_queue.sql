-- 0012: the entry indexes (entries_fts, entries_tri) are written once per transaction, not once
-- per entry.
--
-- FTS5 keeps what a transaction adds in memory and writes it as one segment at the commit, but
-- it also writes everything pending at every statement savepoint, and SQLite opens one for each
-- INSERT that fires a trigger writing to a virtual table. So each appended entry became a
-- segment of its own in both indexes, and FTS5 spent its time merging them: half of an ingest's
-- CPU (issue 16). The triggers now queue the pk of an inserted or changed entry here; the writer
-- indexes the queue in one statement per index just before it commits (sqlite/entry_index.go),
-- so the rows are in the indexes in the same transaction, as before, and no reader ever sees an
-- entry without its index.
--
-- A queued entry is not yet in the indexes: deleting or changing it only drops it from the
-- queue (or leaves it there), with no 'delete' for FTS5, which must be given exactly the values
-- it indexed. An entry already indexed is removed from them at once, as before, while its old
-- values are at hand. The substring index keeps 0009's rule: a pk in the range still to be
-- backfilled is left to the backfill.
CREATE TABLE entries_unindexed (pk INTEGER PRIMARY KEY);

DROP TRIGGER entries_fts_insert;
DROP TRIGGER entries_fts_delete;
DROP TRIGGER entries_fts_update;
DROP TRIGGER entries_tri_insert;
DROP TRIGGER entries_tri_delete;
DROP TRIGGER entries_tri_update;

CREATE TRIGGER entries_index_insert AFTER INSERT ON entries BEGIN
	INSERT OR IGNORE INTO entries_unindexed (pk) VALUES (new.pk);
END;

CREATE TRIGGER entries_index_delete AFTER DELETE ON entries BEGIN
	INSERT INTO entries_fts (entries_fts, rowid, text, reasoning, tool_name, tool_args, tool_result)
	SELECT 'delete', old.pk, old.text, old.reasoning, old.tool_name, old.tool_args, old.tool_result
	WHERE NOT EXISTS (SELECT 1 FROM entries_unindexed WHERE pk = old.pk);
	INSERT INTO entries_tri (entries_tri, rowid, text, reasoning, tool_name, tool_args, tool_result)
	SELECT 'delete', old.pk, old.text, old.reasoning, old.tool_name, old.tool_args, old.tool_result
	WHERE NOT EXISTS (SELECT 1 FROM entries_unindexed WHERE pk = old.pk)
		AND NOT EXISTS (SELECT 1 FROM entries_tri_todo WHERE old.pk > done AND old.pk <= last);
	DELETE FROM entries_unindexed WHERE pk = old.pk;
END;

CREATE TRIGGER entries_index_update AFTER UPDATE OF text, reasoning, tool_name, tool_args, tool_result ON entries BEGIN
	INSERT INTO entries_fts (entries_fts, rowid, text, reasoning, tool_name, tool_args, tool_result)
	SELECT 'delete', old.pk, old.text, old.reasoning, old.tool_name, old.tool_args, old.tool_result
	WHERE NOT EXISTS (SELECT 1 FROM entries_unindexed WHERE pk = old.pk);
	INSERT INTO entries_tri (entries_tri, rowid, text, reasoning, tool_name, tool_args, tool_result)
	SELECT 'delete', old.pk, old.text, old.reasoning, old.tool_name, old.tool_args, old.tool_result
	WHERE NOT EXISTS (SELECT 1 FROM entries_unindexed WHERE pk = old.pk)
		AND NOT EXISTS (SELECT 1 FROM entries_tri_todo WHERE old.pk > done AND old.pk <= last);
	DELETE FROM entries_unindexed WHERE pk = old.pk;
	INSERT OR IGNORE INTO entries_unindexed (pk) VALUES (new.pk);
END;
