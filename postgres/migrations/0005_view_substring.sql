-- 0005: a trigram index (pg_trgm) for the query view's text filter, a substring match as SQL
-- LIKE makes it (ASCII letters in either case, every other character only itself).
--
-- text, reasoning and tool_result are bytea (they may hold NUL or bytes that are no UTF-8), so
-- the indexed value is every field in PostgreSQL's 'escape' encoding: ASCII as itself, a
-- backslash doubled, NUL and every byte from 0x80 as \ooo. It is text, ASCII only, and the same
-- for the same bytes whatever the server's locale; fields are joined by U+001F. A search looks up
-- the substring in the same encoding with ILIKE (which may also match across an escape: a
-- candidate, not a match) and proves each candidate on the bytes of each field, ASCII-folded, by
-- annals_view_fold (postgres/view_substring.go).
CREATE FUNCTION annals_view_text(t bytea, r bytea, n text, a text, res bytea) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
	SELECT encode(t, 'escape') || E'\x1f' || encode(r, 'escape') || E'\x1f' || encode(convert_to(n, 'UTF8'), 'escape')
		|| E'\x1f' || encode(convert_to(a, 'UTF8'), 'escape') || E'\x1f' || encode(res, 'escape')
$$;
-- The bytes of b with ASCII letters lower-cased: the escape encoding is ASCII, so lower() under
-- the C collation touches the letters only, and decoding restores every other byte.
CREATE FUNCTION annals_view_fold(b bytea) RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
	SELECT decode(lower(encode(b, 'escape') COLLATE "C"), 'escape')
$$;

-- pg_trgm ships with PostgreSQL (contrib) and is a trusted extension: the database owner, or
-- any role allowed to CREATE in the database, installs it. When it cannot be installed the
-- migration still succeeds without the index and searches scan (docs/POSTGRES.md says how to
-- add the index later: install pg_trgm, then SELECT annals_view_substring_index()). It goes
-- into public when it is not installed yet, so dropping one annals schema never drops another's
-- index with it.
CREATE FUNCTION annals_view_substring_index() RETURNS boolean LANGUAGE plpgsql AS $$
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
	EXECUTE format('CREATE INDEX IF NOT EXISTS entries_view_substring ON entries USING gin '
		|| '(annals_view_text(text, reasoning, tool_name, tool_args, tool_result) %I.gin_trgm_ops)', ns);
	RETURN true;
END
$$;
SELECT annals_view_substring_index();
