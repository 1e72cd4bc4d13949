-- 0031: an entry's kind and tool are lexemes of the entry index, so a role: or tool: search is
-- one GIN match that carries its filter (issue 33 item 6).
--
-- A search under tool: or role: filtered the entries its words matched on `lower(tool_name)` and
-- `kind` after reading them. The planner has no statistics for `lower(tool_name)` and took its
-- default (0.5% of the rows), where `tool:Bash` holds 12% of the entries: at 1M entries
-- `tool:Bash timeout` ran a sequential scan of every entry with a top-N sort (2.3 s), 13x
-- SQLite's CPU. The entry index now has a second column, annals_entry_facets(kind, tool_name):
-- a tsvector of two lexemes, 'k:<kind>' and 't:<tool name, ASCII lower-cased as lower() does
-- under COLLATE "C">' (none for an entry without a tool, or a name over 1,000 bytes, which
-- could not be a lexeme), and the searches add `annals_entry_facets(e.kind, e.tool_name) @@
-- 'k:user'` (the ORs of their kinds and tools) to the words' match. Both are conditions on the
-- same index, so GIN intersects the postings of the words and of the filter in one scan and
-- reads only the rows that pass both, whatever the planner estimates; ANALYZE keeps the
-- expression's lexeme statistics (as a column's), so its estimates are the real ones too. The
-- SQL filters on kind and tool stay: the lexemes only narrow.
--
-- The lexemes are computed from the row by the index, not stored: nothing the store writes
-- changes, entries.tsv (its ranking, the chat documents built from it) is untouched. The index
-- is built again (docs/BENCHMARKS.md gives the time at 100k entries).
CREATE FUNCTION annals_entry_facets(kind text, tool_name text) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
	SELECT array_to_tsvector(ARRAY['k:' || kind] ||
		CASE WHEN tool_name = '' OR octet_length(tool_name) > 1000 THEN ARRAY[]::text[]
		ELSE ARRAY['t:' || lower(tool_name COLLATE "C")] END)
$$;

SET LOCAL maintenance_work_mem = '256MB';
DROP INDEX entries_tsv;
CREATE INDEX entries_tsv ON entries USING gin (tsv, annals_entry_facets(kind, tool_name)) WITH (gin_pending_list_limit = 1024);
-- The expression's statistics (lexeme frequencies) are collected by ANALYZE, as a column's.
ANALYZE entries;
