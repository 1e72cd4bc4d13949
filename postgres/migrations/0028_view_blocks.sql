-- 0028: the query view's trigram index over blocks of a chat's entries, not over each entry.
--
-- Migration 0005 indexed annals_view_text(...) of every entry with pg_trgm. That index was about
-- half the cost of an append (docs/BENCHMARKS.md, "PostgreSQL's write path"): ~160 trigram keys
-- per entry of the bench corpus went into the GIN index one row at a time. The entries of one
-- chat share most of their trigrams, so one row per block of up to 64 consecutive entries (the
-- seqs of one 64-aligned bucket, written by one statement) holds about a third of the keys.
--
-- A block's body is the annals_view_block_text of its entries in seq order, joined by U+001E: their
-- annals_view_text with ASCII letters lower-cased (the text is ASCII, so under the C collation
-- that is a byte loop), so that a search matches it with LIKE on the folded needle, which reads
-- the bytes as they are, where ILIKE lower-cases every candidate block through the database's
-- locale again (2-4x the time). A block covers first_seq..last_seq of its chat. The blocks of a chat never overlap and cover every entry
-- exactly once, and a body is always what its entries give (CheckIndex verifies both after every
-- conformance subtest). A search asks the blocks' index for candidate blocks (LIKE on the folded
-- needle, which may also match across two entries: a candidate, not a match) and proves each
-- entry of a candidate block as before (postgres/view_substring.go).
--
-- Triggers keep the blocks, so every writer (capture, copy, repair, rescan, truncate) is covered
-- by one definition: an insert adds one block per chat and bucket of the rows it inserted; a
-- delete, or an update of a searched field, rebuilds the touched buckets from the entries left.
CREATE TABLE entry_view_blocks (
	tenant_id text COLLATE "C" NOT NULL,
	chat_pk   bigint NOT NULL REFERENCES chats (pk) ON DELETE CASCADE,
	first_seq bigint NOT NULL,
	last_seq  bigint NOT NULL,
	body      text NOT NULL
);
CREATE INDEX entry_view_blocks_by_chat ON entry_view_blocks (chat_pk, first_seq);

CREATE FUNCTION annals_view_block_text(t bytea, r bytea, n text, a text, res bytea) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
	SELECT lower(annals_view_text(t, r, n, a, res) COLLATE "C")
$$;

-- annals_view_blocks_build writes the blocks of the given buckets (chat_pk, seq >> 6) from the
-- entries they hold now, after deleting the blocks they had.
CREATE FUNCTION annals_view_blocks_build(chats bigint[], buckets bigint[]) RETURNS void
LANGUAGE sql AS $$
	WITH touched AS (SELECT DISTINCT c AS chat_pk, k AS bucket FROM unnest(chats, buckets) AS u(c, k)),
	gone AS (
		DELETE FROM entry_view_blocks b USING touched t
		WHERE b.chat_pk = t.chat_pk AND b.first_seq >= t.bucket << 6 AND b.first_seq < (t.bucket + 1) << 6
	)
	INSERT INTO entry_view_blocks (tenant_id, chat_pk, first_seq, last_seq, body)
	SELECT min(e.tenant_id), e.chat_pk, min(e.seq), max(e.seq),
		string_agg(annals_view_block_text(e.text, e.reasoning, e.tool_name, e.tool_args, e.tool_result), E'\x1e' ORDER BY e.seq)
	FROM touched t JOIN entries e ON e.chat_pk = t.chat_pk AND e.seq >= t.bucket << 6 AND e.seq < (t.bucket + 1) << 6
	GROUP BY e.chat_pk, t.bucket
$$;

CREATE FUNCTION annals_view_blocks_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO entry_view_blocks (tenant_id, chat_pk, first_seq, last_seq, body)
	SELECT min(tenant_id), chat_pk, min(seq), max(seq),
		string_agg(annals_view_block_text(text, reasoning, tool_name, tool_args, tool_result), E'\x1e' ORDER BY seq)
	FROM new_entries GROUP BY chat_pk, seq >> 6;
	RETURN NULL;
END
$$;
CREATE TRIGGER entries_view_blocks_insert AFTER INSERT ON entries
	REFERENCING NEW TABLE AS new_entries FOR EACH STATEMENT EXECUTE FUNCTION annals_view_blocks_insert();

CREATE FUNCTION annals_view_blocks_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM annals_view_blocks_build(array_agg(chat_pk), array_agg(seq >> 6)) FROM old_entries HAVING count(*) > 0;
	RETURN NULL;
END
$$;
CREATE TRIGGER entries_view_blocks_delete AFTER DELETE ON entries
	REFERENCING OLD TABLE AS old_entries FOR EACH STATEMENT EXECUTE FUNCTION annals_view_blocks_delete();

CREATE FUNCTION annals_view_blocks_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM annals_view_blocks_build(ARRAY[OLD.chat_pk, NEW.chat_pk], ARRAY[OLD.seq >> 6, NEW.seq >> 6]);
	RETURN NULL;
END
$$;
CREATE TRIGGER entries_view_blocks_update AFTER UPDATE ON entries FOR EACH ROW
	WHEN (OLD.text IS DISTINCT FROM NEW.text OR OLD.reasoning IS DISTINCT FROM NEW.reasoning
		OR OLD.tool_name IS DISTINCT FROM NEW.tool_name OR OLD.tool_args IS DISTINCT FROM NEW.tool_args
		OR OLD.tool_result IS DISTINCT FROM NEW.tool_result OR OLD.seq IS DISTINCT FROM NEW.seq
		OR OLD.chat_pk IS DISTINCT FROM NEW.chat_pk)
	EXECUTE FUNCTION annals_view_blocks_update();

INSERT INTO entry_view_blocks (tenant_id, chat_pk, first_seq, last_seq, body)
SELECT min(tenant_id), chat_pk, min(seq), max(seq),
	string_agg(annals_view_block_text(text, reasoning, tool_name, tool_args, tool_result), E'\x1e' ORDER BY seq)
FROM entries GROUP BY chat_pk, seq >> 6;

DROP INDEX IF EXISTS entries_view_substring;

-- The same function as migration 0005's, now indexing the blocks: run it (SELECT
-- annals_view_substring_index()) once pg_trgm can be installed, when it could not be here.
CREATE OR REPLACE FUNCTION annals_view_substring_index() RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
	ns text;
BEGIN
	SELECT n.nspname INTO ns FROM pg_extension x JOIN pg_namespace n ON n.oid = x.extnamespace WHERE x.extname = 'pg_trgm';
	IF ns IS NULL THEN
		BEGIN
			CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public;
		EXCEPTION WHEN OTHERS THEN
			RAISE NOTICE 'annals: the pg_trgm extension cannot be installed (%); the query view''s text search scans without an index', SQLERRM;
			RETURN false;
		END;
		ns := 'public';
	END IF;
	EXECUTE format('CREATE INDEX IF NOT EXISTS entry_view_blocks_trgm ON entry_view_blocks USING gin '
		|| '(body %I.gin_trgm_ops) WITH (gin_pending_list_limit = 1024)', ns);
	RETURN true;
END
$$;
SELECT annals_view_substring_index();
