-- 0030: the query view's blocks (migration 0028) built in one place, two rebuilds of a chat's
-- blocks one after the other, and a block's body bounded in size.
--
-- 1. One place. 0028 wrote a block's SELECT three times (the insert trigger, the rebuild, the
--    first fill). annals_view_blocks_add is now the only one: it writes the blocks of the given
--    seq ranges of chats from the entries they hold. The insert trigger passes, per chat and
--    64-aligned bucket, the range of seqs the statement inserted (an append numbers a chat's
--    new entries consecutively after its last seq, so that range holds its rows and no other);
--    a rebuild passes whole buckets. It reads the entries by range rather than taking their
--    values as arrays: an array of a bucket's bodies could itself pass the 1 GiB limit (3.).
-- 2. Rebuilds serialize per chat. A rebuild deletes a bucket's blocks and writes them again from
--    the entries it sees. Two transactions rebuilding one bucket at once (a rescan rewriting an
--    entry while a truncate cuts the chat, say) each saw the entries and blocks of before the
--    other committed: the second one's delete skipped the first one's new block, and its insert
--    wrote a second block over the same entries, with the first one's change missing. A rebuild
--    now takes a transaction advisory lock per chat first (in chat order), so the second waits,
--    and its statements then see what the first committed. An advisory lock rather than the
--    chat row's: a rescan holds entry rows when its update rebuilds, and a capture holding the
--    chat row waits for those rows, so the row lock would make the two deadlock.
-- 3. A bounded body. A bucket held up to 64 entries of up to 8 MiB (annals.MaxEntryBytes), and
--    the escape encoding writes a byte from 0x80 as four characters: up to 2 GiB in one text
--    value, past PostgreSQL's 1 GiB limit on a field, which would have failed the write. A block
--    now ends where its body passes annals_view_block_bytes() (64 MiB): the entries of a bucket
--    go to consecutive blocks by the running size of their text, so a body holds at most that
--    plus one entry (32 MiB escaped). No entry is cut: every byte of every entry stays in the
--    candidate test a search asks the trigram index for.
CREATE FUNCTION annals_view_block_bytes() RETURNS bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT 67108864::bigint
$$;

-- annals_view_blocks_add writes the blocks of the entries of chats[i] with seqs los[i]..his[i]:
-- per 64-aligned bucket of seqs, consecutive entries in seq order while the body's running size
-- before an entry stays under annals_view_block_bytes().
CREATE FUNCTION annals_view_blocks_add(chats bigint[], los bigint[], his bigint[]) RETURNS void
LANGUAGE sql AS $$
	INSERT INTO entry_view_blocks (tenant_id, chat_pk, first_seq, last_seq, body)
	SELECT min(tenant_id), chat_pk, min(seq), max(seq), string_agg(body, E'\x1e' ORDER BY seq)
	FROM (
		SELECT tenant_id, chat_pk, seq, body,
			(sum(octet_length(body) + 1) OVER w - octet_length(body) - 1) / annals_view_block_bytes() AS part
		FROM (
			SELECT e.tenant_id, e.chat_pk, e.seq,
				annals_view_block_text(e.text, e.reasoning, e.tool_name, e.tool_args, e.tool_result) AS body
			FROM unnest(chats, los, his) AS r(chat, lo, hi)
			JOIN entries e ON e.chat_pk = r.chat AND e.seq BETWEEN r.lo AND r.hi) t
		WINDOW w AS (PARTITION BY chat_pk, seq >> 6 ORDER BY seq)) x
	GROUP BY chat_pk, seq >> 6, part
$$;

-- annals_view_blocks_build writes the blocks of the given buckets (chat_pk, seq >> 6) from the
-- entries they hold now, after deleting the blocks they had, once no other transaction is
-- rebuilding blocks of those chats (2. above). Each statement of a PL/pgSQL function reads a
-- fresh snapshot, so the delete and the writes see what a rebuild it waited for committed.
CREATE OR REPLACE FUNCTION annals_view_blocks_build(chats bigint[], buckets bigint[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	cs bigint[];
	los bigint[];
	his bigint[];
BEGIN
	SELECT array_agg(c ORDER BY c, k), array_agg(k << 6 ORDER BY c, k), array_agg(((k + 1) << 6) - 1 ORDER BY c, k)
	INTO cs, los, his
	FROM (SELECT DISTINCT c, k FROM unnest(chats, buckets) AS u(c, k)) t;
	PERFORM pg_advisory_xact_lock(hashtext('annals.view_blocks.' || current_schema()), (c & 2147483647)::integer)
	FROM (SELECT DISTINCT c FROM unnest(cs) AS c ORDER BY c) l;
	DELETE FROM entry_view_blocks b USING unnest(cs, los, his) AS t(chat_pk, lo, hi)
	WHERE b.chat_pk = t.chat_pk AND b.first_seq BETWEEN t.lo AND t.hi;
	PERFORM annals_view_blocks_add(cs, los, his);
END
$$;

CREATE OR REPLACE FUNCTION annals_view_blocks_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM annals_view_blocks_add(array_agg(chat_pk), array_agg(lo), array_agg(hi))
	FROM (SELECT chat_pk, min(seq) AS lo, max(seq) AS hi FROM new_entries GROUP BY chat_pk, seq >> 6) r
	HAVING count(*) > 0;
	RETURN NULL;
END
$$;

-- Blocks 0028 wrote past the bound are written again, split.
SELECT annals_view_blocks_build(array_agg(chat_pk), array_agg(first_seq >> 6))
FROM entry_view_blocks WHERE octet_length(body) > annals_view_block_bytes() HAVING count(*) > 0;
