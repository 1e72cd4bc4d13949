-- 0005: importer bookkeeping (annals.ImportStateStore). One row per imported source file, the
-- chats each source produced, and titles waiting for the chat they name.
CREATE TABLE import_sources (
	pk          INTEGER PRIMARY KEY,
	path        TEXT    NOT NULL UNIQUE,
	format      TEXT    NOT NULL,
	size        INTEGER NOT NULL DEFAULT 0,
	mod_time    INTEGER NOT NULL DEFAULT 0,
	hash        TEXT    NOT NULL DEFAULT '',
	offset      INTEGER NOT NULL DEFAULT 0,
	line        INTEGER NOT NULL DEFAULT 0,
	state       TEXT    NOT NULL DEFAULT '',
	provisional TEXT    NOT NULL DEFAULT '',
	entries     INTEGER NOT NULL DEFAULT 0,
	imported_at INTEGER NOT NULL,
	gone_at     INTEGER,
	last_error  TEXT    NOT NULL DEFAULT ''
);

-- Which chats a source produced. Not a foreign key to chats: deleting a chat must not lose the
-- record that its source was read (a re-import would otherwise bring the chat back silently,
-- which is the expected behaviour anyway, but the bookkeeping stays honest).
CREATE TABLE import_source_chats (
	source_pk INTEGER NOT NULL REFERENCES import_sources (pk) ON DELETE CASCADE,
	chat_id   TEXT    NOT NULL,
	PRIMARY KEY (source_pk, chat_id)
) WITHOUT ROWID;
CREATE INDEX import_source_chats_by_chat ON import_source_chats (chat_id);

CREATE TABLE import_pending_titles (
	source_id  TEXT    PRIMARY KEY,
	title      TEXT    NOT NULL,
	created_at INTEGER NOT NULL
) WITHOUT ROWID;

-- Finding the chat that holds an upstream message id (a Claude Code summary names the last
-- message of the conversation it titles) must not scan every entry.
CREATE INDEX entry_sources_by_source ON entry_sources (source_id);
