-- 0019: background digests (docs/PROVIDERS.md, "Digests in the background"). A chat's title
-- may be one the digest generated (title_generated): a rename by a person clears the mark, and
-- a marked title is the only kind a digest replaces. chat_digests keeps each chat's digest
-- state: the transcript length (entry count) its digest was computed from, when, the failures
-- in a row and when to retry, and the lease (holder and expiry, taken by one atomic upsert)
-- that keeps two servers on this database from digesting one chat at once. digest_schedule
-- keeps when the scheduled recap last ran.
ALTER TABLE chats ADD COLUMN title_generated boolean NOT NULL DEFAULT false;

CREATE TABLE chat_digests (
	chat_pk          bigint PRIMARY KEY REFERENCES chats (pk) ON DELETE CASCADE,
	digested_entries bigint NOT NULL DEFAULT -1,
	digested_at      bigint,
	failures         integer NOT NULL DEFAULT 0,
	retry_at         bigint,
	lease_holder     text COLLATE "C" NOT NULL DEFAULT '',
	lease_until      bigint
);

CREATE TABLE digest_schedule (
	singleton integer PRIMARY KEY CHECK (singleton = 1),
	last_run  bigint  NOT NULL
);
