-- 0026: the digest worker's walk (storecore.DigestStates) pages through the live chats that hold
-- entries by (last_activity, id), a page of 100 after the last page's position. Without an index
-- in that order every page scanned and sorted every chat, so a pass over n chats cost n²/100
-- rows (0.4-0.5 s of CPU per pass at 10k chats, docs/BENCHMARKS.md); this index lets each page start where the last one ended.
CREATE INDEX chats_digest_walk ON chats (last_activity, id) WHERE entry_count > 0 AND archived_at IS NULL;
