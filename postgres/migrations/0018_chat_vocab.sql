-- 0018: the vocabulary of the full-text indexes, per tenant, so that a prefix (re*) is searched
-- as its most frequent words (internal/storecore/prefix.go) instead of a tsquery prefix ('re':*),
-- which merges the GIN postings of every lexeme with it: 'te':* read every chat at 1M entries.
--
-- chat_vocab holds, per tenant and word, the documents holding it: the chat documents' parts
-- (chat_docs) and the chats' metadata (chat_meta), so a chat holding a word in its title and in
-- its transcript counts twice (an order for choosing the most frequent words, not a count of
-- chats). Marker and owner lexemes (starting with a space) are not words.
--
-- Writers never update chat_vocab: the document refresh and triggers append each statement's net
-- change to chat_vocab_delta, which takes no lock another writer waits on (a count per word kept by every
-- capture would serialise the captures of a tenant on its common words). The store folds the
-- deltas into chat_vocab (annals_fold_vocab) every few write transactions, one folder at a time;
-- a reader sums both, so what it reads never depends on when the last fold ran.
CREATE TABLE chat_vocab (
	tenant_id text COLLATE "C" NOT NULL,
	word      text COLLATE "C" NOT NULL,
	docs      integer NOT NULL,
	PRIMARY KEY (tenant_id, word)
);
-- A search over every tenant reads the words in order across tenants.
CREATE INDEX chat_vocab_word ON chat_vocab (word) INCLUDE (docs);

CREATE TABLE chat_vocab_delta (
	tenant_id text COLLATE "C" NOT NULL,
	word      text COLLATE "C" NOT NULL,
	docs      integer NOT NULL
);
-- No index: a capture appends a row per new word of a part, and indexing them doubled the cost
-- of a document refresh; a reader scans the deltas, which the folds keep few.

-- annals_vocab_note appends a statement's net change of words to chat_vocab_delta: +1 per new
-- row holding a word, -1 per old row (an update's old and new rows net out, so an append that
-- adds no new word to a part writes nothing). TG_ARGV[0] names the tsvector column.
CREATE FUNCTION annals_vocab_note() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
	src text;
BEGIN
	IF TG_OP = 'INSERT' THEN
		src := format('SELECT n.tenant_id, w, 1 AS k FROM new_rows n, unnest(tsvector_to_array(n.%I)) w', TG_ARGV[0]);
	ELSIF TG_OP = 'DELETE' THEN
		src := format('SELECT o.tenant_id, w, -1 AS k FROM old_rows o, unnest(tsvector_to_array(o.%I)) w', TG_ARGV[0]);
	ELSE
		src := format('SELECT n.tenant_id, w, 1 AS k FROM new_rows n, unnest(tsvector_to_array(n.%1$I)) w
			UNION ALL SELECT o.tenant_id, w, -1 FROM old_rows o, unnest(tsvector_to_array(o.%1$I)) w', TG_ARGV[0]);
	END IF;
	EXECUTE 'INSERT INTO chat_vocab_delta (tenant_id, word, docs) SELECT tenant_id, w, sum(k) FROM (' || src || ') x
		WHERE left(w, 1) <> '' '' GROUP BY 1, 2 HAVING sum(k) <> 0';
	RETURN NULL;
END
$fn$;

CREATE TRIGGER chat_docs_vocab_delete AFTER DELETE ON chat_docs REFERENCING OLD TABLE AS old_rows
	FOR EACH STATEMENT EXECUTE FUNCTION annals_vocab_note('tsv');
CREATE TRIGGER chat_meta_vocab_insert AFTER INSERT ON chat_meta REFERENCING NEW TABLE AS new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION annals_vocab_note('meta_tsv');
CREATE TRIGGER chat_meta_vocab_update AFTER UPDATE ON chat_meta REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION annals_vocab_note('meta_tsv');
CREATE TRIGGER chat_meta_vocab_delete AFTER DELETE ON chat_meta REFERENCING OLD TABLE AS old_rows
	FOR EACH STATEMENT EXECUTE FUNCTION annals_vocab_note('meta_tsv');

-- A chat document only grows between deletes: annals_refresh_chat_doc (migration 0006) merges new
-- entries into a chat's parts. It writes the words it adds to a part itself, from the grouping it
-- does anyway (a word of the new entries that the part did not hold), so capture pays no second
-- pass over the parts' lexemes (a trigger unnesting the old and new vectors doubled the cost of a
-- refresh). Deleting parts (a truncate, a rescan, a chat's deletion) goes through the trigger.
CREATE OR REPLACE FUNCTION annals_refresh_chat_doc(chat bigint) RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
WITH st AS (
	SELECT coalesce(max(upto), 0) AS upto, coalesce(max(bytes), 0) AS bytes FROM chat_docs WHERE chat_pk = chat),
fresh AS (
	SELECT e.seq, e.tsv, st.bytes + sum(pg_column_size(e.tsv)) OVER w AS cum, pg_column_size(e.tsv) AS size
	FROM entries e CROSS JOIN st WHERE e.chat_pk = chat AND e.seq > st.upto
	WINDOW w AS (ORDER BY e.seq)),
placed AS (SELECT seq, tsv, cum, ((cum - size) / 65536)::integer AS part FROM fresh),
parts AS (SELECT part, max(seq) AS upto, max(cum) AS bytes FROM placed GROUP BY part),
merged AS MATERIALIZED (
	SELECT part, lexeme, least(sum(n), 16)::integer AS n, bool_and(isnew) AS isnew FROM (
		SELECT p.part, u.lexeme, cardinality(u.positions) AS n, true AS isnew FROM placed p, unnest(p.tsv) u
		UNION ALL
		SELECT d.part, u.lexeme, cardinality(u.positions), false FROM chat_docs d JOIN parts p ON p.part = d.part, unnest(d.tsv) u
		WHERE d.chat_pk = chat AND left(u.lexeme, 1) <> ' ') x
	GROUP BY part, lexeme),
counts AS (SELECT part, lexeme, n FROM merged),
vocab AS (
	INSERT INTO chat_vocab_delta (tenant_id, word, docs)
	SELECT (SELECT tenant_id FROM chats WHERE pk = chat), lexeme, count(*) FROM merged WHERE isnew GROUP BY lexeme),
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

-- annals_fold_vocab moves the deltas into chat_vocab (the rows visible when it starts; deltas
-- written meanwhile stay for the next fold) and returns how many rows it folded. The caller
-- holds the fold's advisory lock, so two folds never lock chat_vocab rows in two orders.
CREATE FUNCTION annals_fold_vocab() RETURNS bigint LANGUAGE sql AS $fn$
	WITH d AS (DELETE FROM chat_vocab_delta RETURNING tenant_id, word, docs),
	s AS (SELECT tenant_id, word, sum(docs) AS docs, count(*) AS n FROM d GROUP BY 1, 2),
	up AS (INSERT INTO chat_vocab AS v (tenant_id, word, docs)
		SELECT tenant_id, word, docs FROM s ORDER BY tenant_id, word
		ON CONFLICT (tenant_id, word) DO UPDATE SET docs = v.docs + excluded.docs)
	SELECT coalesce(sum(n), 0)::bigint FROM s;
$fn$;

-- chat_vocab_built is the vocabulary built from scratch: the one definition the upkeep above
-- keeps, which this migration starts from and the store's index check compares with.
CREATE VIEW chat_vocab_built AS
SELECT tenant_id, w AS word, count(*) AS docs FROM (
	SELECT d.tenant_id, w FROM chat_docs d, unnest(tsvector_to_array(d.tsv)) w
	UNION ALL
	SELECT m.tenant_id, w FROM chat_meta m, unnest(tsvector_to_array(m.meta_tsv)) w) x
WHERE left(w, 1) <> ' '
GROUP BY 1, 2;

INSERT INTO chat_vocab (tenant_id, word, docs) SELECT tenant_id, word, docs FROM chat_vocab_built;
