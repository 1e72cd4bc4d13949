-- 0006: the chat documents, one full-text vector per chat (or per part of a long chat), so a
-- search ranks chats instead of every matching entry, and answers from the GIN index alone
-- (issue 16).
--
-- A chat document lists every lexeme of the chat's entries with how often it occurs, up to 16
-- (as positions 1..n, no weights), and for each lexeme occurring at least 2, 4, 8 or 16 times a
-- marker lexeme ' 2word', ' 4word', ' 8word', ' 16word'. No search reads a document: matching
-- ('word', 'word':*) and the term frequency a ranking needs (which markers a chat has) are
-- both answered by GIN bitmap scans, which never detoast the vectors. Reading one vector costs
-- ~0.1 ms (a 10 KB value in TOAST), which is what ranking every matching entry or chat paid.
--
-- The owner is inside the vector: the lexemes ' t' || sha256(tenant), ' u' || sha256(user) and
-- ' a' || sha256(agent), in hex. Every marker starts with a space, which no query token has, so no search
-- term, prefix or not, can match one. A search ANDs its owner's lexemes to the query, so the
-- index never returns another tenant's documents; the SQL owner condition on chats still decides.
--
-- A long chat is split into parts by the running size of its entries' vectors (a new part every
-- 64 KiB), so a document stays far below PostgreSQL's 1 MiB tsvector limit and an append rewrites
-- only the chat's last part. upto is the last seq merged into a part, bytes the running size
-- there.
CREATE TABLE chat_docs (
	chat_pk   bigint NOT NULL REFERENCES chats (pk) ON DELETE CASCADE,
	part      integer NOT NULL,
	tenant_id text COLLATE "C" NOT NULL,
	upto      bigint NOT NULL,
	bytes     bigint NOT NULL,
	tsv       tsvector NOT NULL,
	PRIMARY KEY (chat_pk, part)
);
CREATE INDEX chat_docs_tsv ON chat_docs USING gin (tsv) WITH (gin_pending_list_limit = 1024);

-- annals_refresh_chat_doc brings one chat's document up to date with its entries: the entries
-- past the newest part's upto are merged into the part they fall in (the last one, or new
-- ones). So it is both the update after an append and, for a chat whose parts were deleted (a
-- truncate, a rescan, this migration), the full build. PL/pgSQL rather than SQL, because a
-- PL/pgSQL function keeps its statement's plan for the session: planning this one costs ~10 ms,
-- which every capture would pay again for every chat it appends to.
CREATE FUNCTION annals_refresh_chat_doc(chat bigint) RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
WITH st AS (
	SELECT coalesce(max(upto), 0) AS upto, coalesce(max(bytes), 0) AS bytes FROM chat_docs WHERE chat_pk = chat),
fresh AS (
	SELECT e.seq, e.tsv, st.bytes + sum(pg_column_size(e.tsv)) OVER w AS cum, pg_column_size(e.tsv) AS size
	FROM entries e CROSS JOIN st WHERE e.chat_pk = chat AND e.seq > st.upto
	WINDOW w AS (ORDER BY e.seq)),
placed AS (SELECT seq, tsv, cum, ((cum - size) / 65536)::integer AS part FROM fresh),
parts AS (SELECT part, max(seq) AS upto, max(cum) AS bytes FROM placed GROUP BY part),
counts AS (
	SELECT part, lexeme, least(sum(n), 16)::integer AS n FROM (
		SELECT p.part, u.lexeme, cardinality(u.positions) AS n FROM placed p, unnest(p.tsv) u
		UNION ALL
		SELECT d.part, u.lexeme, cardinality(u.positions) FROM chat_docs d JOIN parts p ON p.part = d.part, unnest(d.tsv) u
		WHERE d.chat_pk = chat AND left(u.lexeme, 1) <> ' ') x
	GROUP BY part, lexeme),
quoted AS (SELECT part, n, replace(replace(lexeme, '\', '\\'), '''', '''''') AS q FROM counts),
lexemes AS (
	SELECT part, '''' || q || ''':' || array_to_string(ARRAY(SELECT generate_series(1, n)), ',')
		|| CASE WHEN n >= 2 THEN ' '' 2' || q || '''' ELSE '' END
		|| CASE WHEN n >= 4 THEN ' '' 4' || q || '''' ELSE '' END
		|| CASE WHEN n >= 8 THEN ' '' 8' || q || '''' ELSE '' END
		|| CASE WHEN n >= 16 THEN ' '' 16' || q || '''' ELSE '' END AS lex
	FROM quoted),
docs AS (SELECT part, string_agg(lex, ' ') AS lex FROM lexemes GROUP BY part),
owner AS (
	SELECT tenant_id, ''' t' || encode(sha256(convert_to(tenant_id, 'UTF8')), 'hex') || ''' '' u' || encode(sha256(convert_to(user_id, 'UTF8')), 'hex')
		|| ''' '' a' || encode(sha256(convert_to(agent_id, 'UTF8')), 'hex') || '''' AS lex
	FROM chats WHERE pk = chat)
INSERT INTO chat_docs (chat_pk, part, tenant_id, upto, bytes, tsv)
SELECT chat, p.part, o.tenant_id, p.upto, p.bytes, (o.lex || coalesce(' ' || d.lex, ''))::tsvector
FROM parts p CROSS JOIN owner o LEFT JOIN docs d ON d.part = p.part
ON CONFLICT (chat_pk, part) DO UPDATE SET upto = excluded.upto, bytes = excluded.bytes, tsv = excluded.tsv;
END
$fn$;

-- What a search reads of every matching chat (activity order, size), without the chat
-- rows: every append rewrites its chat's row, so after a bulk load the live rows lie one to a
-- page among dead ones, and a search joining 10k matching chats read 10k pages for them.
-- last_activity is in chats_by_activity already, so this adds no HOT-update loss.
CREATE INDEX chats_search ON chats (pk) INCLUDE (last_activity, entry_count, id)
	WHERE archived_at IS NULL;

SELECT annals_refresh_chat_doc(pk) FROM chats;
