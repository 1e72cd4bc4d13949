-- 0025: the chat documents of several chats refreshed in one statement (docs/POSTGRES.md,
-- "Upkeep"). A capture transaction of an ingest appends to hundreds of chats, and refreshing
-- them one call of annals_refresh_chat_doc at a time ran its statement once per chat and wrote
-- the vocabulary's deltas once per chat (one row per word new to each chat's part, which the
-- next fold then moved one by one). annals_refresh_chat_docs does what annals_refresh_chat_doc
-- does for each chat of the array, in one statement, and writes one delta row per tenant and
-- word for all of them (the same sum: a reader and a fold add the deltas up).
--
-- annals_refresh_chat_doc (0018) stays the definition of a document: CheckIndex rebuilds every
-- document from scratch with it and compares, so after every conformance subtest the documents
-- the writers kept with this function are checked against that one.
CREATE FUNCTION annals_refresh_chat_docs(chats bigint[]) RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
WITH ch AS (SELECT DISTINCT c AS chat FROM unnest(chats) AS c),
st AS (
	SELECT ch.chat, coalesce(max(d.upto), 0) AS upto, coalesce(max(d.bytes), 0) AS bytes
	FROM ch LEFT JOIN chat_docs d ON d.chat_pk = ch.chat GROUP BY ch.chat),
fresh AS (
	SELECT e.chat_pk AS chat, e.seq, e.tsv, st.bytes + sum(pg_column_size(e.tsv)) OVER w AS cum, pg_column_size(e.tsv) AS size
	FROM st JOIN entries e ON e.chat_pk = st.chat AND e.seq > st.upto
	WINDOW w AS (PARTITION BY e.chat_pk ORDER BY e.seq)),
placed AS (SELECT chat, seq, tsv, cum, ((cum - size) / 65536)::integer AS part FROM fresh),
parts AS (SELECT chat, part, max(seq) AS upto, max(cum) AS bytes FROM placed GROUP BY chat, part),
merged AS MATERIALIZED (
	SELECT chat, part, lexeme, least(sum(n), 16)::integer AS n, bool_and(isnew) AS isnew FROM (
		SELECT p.chat, p.part, u.lexeme, cardinality(u.positions) AS n, true AS isnew FROM placed p, unnest(p.tsv) u
		UNION ALL
		SELECT d.chat_pk, d.part, u.lexeme, cardinality(u.positions), false
		FROM chat_docs d JOIN parts p ON p.chat = d.chat_pk AND p.part = d.part, unnest(d.tsv) u
		WHERE left(u.lexeme, 1) <> ' ') x
	GROUP BY chat, part, lexeme),
vocab AS (
	INSERT INTO chat_vocab_delta (tenant_id, word, docs)
	SELECT c.tenant_id, m.lexeme, count(*) FROM merged m JOIN chats c ON c.pk = m.chat WHERE m.isnew GROUP BY c.tenant_id, m.lexeme),
quoted AS (SELECT chat, part, n, replace(replace(lexeme, '\', '\\'), '''', '''''') AS q FROM merged),
lexemes AS (
	SELECT chat, part, '''' || q || ''':' || array_to_string(ARRAY(SELECT generate_series(1, n)), ',')
		|| CASE WHEN n >= 2 THEN ' '' 2' || q || '''' ELSE '' END
		|| CASE WHEN n >= 4 THEN ' '' 4' || q || '''' ELSE '' END
		|| CASE WHEN n >= 8 THEN ' '' 8' || q || '''' ELSE '' END
		|| CASE WHEN n >= 16 THEN ' '' 16' || q || '''' ELSE '' END AS lex
	FROM quoted),
docs AS (SELECT chat, part, string_agg(lex, ' ') AS lex FROM lexemes GROUP BY chat, part),
owner AS (
	SELECT pk AS chat, tenant_id, ''' t' || encode(sha256(convert_to(tenant_id, 'UTF8')), 'hex') || ''' '' u' || encode(sha256(convert_to(user_id, 'UTF8')), 'hex')
		|| ''' '' a' || encode(sha256(convert_to(agent_id, 'UTF8')), 'hex') || '''' AS lex
	FROM chats WHERE pk IN (SELECT chat FROM ch))
INSERT INTO chat_docs (chat_pk, part, tenant_id, upto, bytes, tsv)
SELECT p.chat, p.part, o.tenant_id, p.upto, p.bytes, (o.lex || coalesce(' ' || d.lex, ''))::tsvector
FROM parts p JOIN owner o ON o.chat = p.chat LEFT JOIN docs d ON d.chat = p.chat AND d.part = p.part
ON CONFLICT (chat_pk, part) DO UPDATE SET upto = excluded.upto, bytes = excluded.bytes, tsv = excluded.tsv;
END
$fn$;
