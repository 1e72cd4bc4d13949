-- 0024: background digests (docs/PROVIDERS.md, "Digests in the background"). A chat's title
-- may be one the digest generated (title_generated = 1): a rename by a person clears the mark,
-- and a marked title is the only kind a digest replaces. chat_digests keeps each chat's digest
-- state: the transcript length (entry count) its digest was computed from, when, the failures
-- in a row and when to retry, and the lease that keeps two workers from digesting one chat at
-- once. digest_schedule keeps when the scheduled recap last ran.
ALTER TABLE chats ADD COLUMN title_generated INTEGER NOT NULL DEFAULT 0;

CREATE TABLE chat_digests (
	chat_pk          INTEGER PRIMARY KEY REFERENCES chats (pk) ON DELETE CASCADE,
	digested_entries INTEGER NOT NULL DEFAULT -1,
	digested_at      INTEGER,
	failures         INTEGER NOT NULL DEFAULT 0,
	retry_at         INTEGER,
	lease_holder     TEXT    NOT NULL DEFAULT '',
	lease_until      INTEGER
);

CREATE TABLE digest_schedule (
	singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
	last_run  INTEGER NOT NULL
);
