-- 0001: chats, entries, runs and their full-text indexes.
-- Times are INTEGER unix nanoseconds (UTC). Every table carries what it needs to be filtered by
-- owner without a join where that matters for speed, and explicit INTEGER PRIMARY KEYs so that
-- FTS rowids stay stable across VACUUM.

CREATE TABLE chats (
	pk                 INTEGER PRIMARY KEY,
	id                 TEXT    NOT NULL UNIQUE,
	tenant_id          TEXT    NOT NULL,
	user_id            TEXT    NOT NULL DEFAULT '',
	agent_id           TEXT    NOT NULL DEFAULT '',
	attributes         TEXT    NOT NULL DEFAULT '{}',
	created_at         INTEGER NOT NULL,
	last_activity      INTEGER NOT NULL,
	status             TEXT    NOT NULL DEFAULT '',
	title              TEXT    NOT NULL DEFAULT '',
	-- title folded to lower case by Go (SQLite's lower() folds ASCII only), for title_contains.
	title_fold         TEXT    NOT NULL DEFAULT '',
	description        TEXT    NOT NULL DEFAULT '',
	tags               TEXT    NOT NULL DEFAULT '',
	pinned             INTEGER NOT NULL DEFAULT 0,
	archived_at        INTEGER,
	summary            TEXT    NOT NULL DEFAULT '',
	summary_updated_at INTEGER,
	last_seq           INTEGER NOT NULL DEFAULT 0,
	entry_count        INTEGER NOT NULL DEFAULT 0,
	entry_input_tokens INTEGER NOT NULL DEFAULT 0,
	entry_output_tokens INTEGER NOT NULL DEFAULT 0,
	run_count          INTEGER NOT NULL DEFAULT 0,
	run_input_tokens   INTEGER NOT NULL DEFAULT 0,
	run_output_tokens  INTEGER NOT NULL DEFAULT 0,
	cost_usd           REAL    NOT NULL DEFAULT 0
);
CREATE INDEX chats_by_tenant_activity ON chats (tenant_id, pinned DESC, last_activity DESC);
CREATE INDEX chats_by_activity ON chats (pinned DESC, last_activity DESC);

-- Tags and attributes are also stored one per row so that filters compare whole values with
-- bound parameters, never by searching an encoded blob.
CREATE TABLE chat_tags (
	chat_pk INTEGER NOT NULL REFERENCES chats (pk) ON DELETE CASCADE,
	tag     TEXT    NOT NULL,
	PRIMARY KEY (chat_pk, tag)
) WITHOUT ROWID;
CREATE INDEX chat_tags_by_tag ON chat_tags (tag);

CREATE TABLE chat_attributes (
	chat_pk INTEGER NOT NULL REFERENCES chats (pk) ON DELETE CASCADE,
	key     TEXT    NOT NULL,
	value   TEXT    NOT NULL,
	PRIMARY KEY (chat_pk, key)
) WITHOUT ROWID;
CREATE INDEX chat_attributes_by_key_value ON chat_attributes (key, value);

CREATE TABLE entries (
	pk             INTEGER PRIMARY KEY,
	chat_pk        INTEGER NOT NULL REFERENCES chats (pk) ON DELETE CASCADE,
	id             TEXT    NOT NULL,
	seq            INTEGER NOT NULL,
	kind           TEXT    NOT NULL,
	run_id         TEXT    NOT NULL DEFAULT '',
	source_ids     TEXT    NOT NULL DEFAULT '',
	channel        TEXT    NOT NULL DEFAULT '',
	correlation_id TEXT    NOT NULL DEFAULT '',
	time           INTEGER NOT NULL,
	text           TEXT    NOT NULL DEFAULT '',
	reasoning      TEXT    NOT NULL DEFAULT '',
	tool_name      TEXT    NOT NULL DEFAULT '',
	tool_call_id   TEXT    NOT NULL DEFAULT '',
	tool_args      TEXT    NOT NULL DEFAULT '',
	tool_result    TEXT    NOT NULL DEFAULT '',
	tool_outcome   TEXT    NOT NULL DEFAULT '',
	input_tokens   INTEGER NOT NULL DEFAULT 0,
	output_tokens  INTEGER NOT NULL DEFAULT 0,
	metadata       TEXT    NOT NULL DEFAULT '',
	UNIQUE (chat_pk, seq),
	UNIQUE (chat_pk, id)
);
CREATE INDEX entries_by_correlation ON entries (correlation_id) WHERE correlation_id <> '';

-- Source ids, one per row, so a rewind can find its point by index.
CREATE TABLE entry_sources (
	chat_pk   INTEGER NOT NULL,
	source_id TEXT    NOT NULL,
	entry_pk  INTEGER NOT NULL REFERENCES entries (pk) ON DELETE CASCADE,
	seq       INTEGER NOT NULL,
	PRIMARY KEY (chat_pk, source_id, seq)
) WITHOUT ROWID;
CREATE INDEX entry_sources_by_entry ON entry_sources (entry_pk);

CREATE TABLE runs (
	pk            INTEGER PRIMARY KEY,
	id            TEXT    NOT NULL UNIQUE,
	chat_pk       INTEGER NOT NULL REFERENCES chats (pk) ON DELETE CASCADE,
	status        TEXT    NOT NULL,
	model         TEXT    NOT NULL DEFAULT '',
	started_at    INTEGER NOT NULL,
	ended_at      INTEGER,
	input_tokens  INTEGER NOT NULL DEFAULT 0,
	output_tokens INTEGER NOT NULL DEFAULT 0,
	cost_usd      REAL    NOT NULL DEFAULT 0
);
CREATE INDEX runs_by_chat ON runs (chat_pk, started_at);

-- Full-text index over entry bodies. External content: the text lives once, in entries; the
-- triggers below keep the index in the same transaction as the rows, so a truncate or delete
-- can never leave a ghost hit. unicode61 with remove_diacritics folds case and accents.
CREATE VIRTUAL TABLE entries_fts USING fts5 (
	text, reasoning, tool_name, tool_args, tool_result,
	content = 'entries', content_rowid = 'pk',
	tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TRIGGER entries_fts_insert AFTER INSERT ON entries BEGIN
	INSERT INTO entries_fts (rowid, text, reasoning, tool_name, tool_args, tool_result)
	VALUES (new.pk, new.text, new.reasoning, new.tool_name, new.tool_args, new.tool_result);
END;
CREATE TRIGGER entries_fts_delete AFTER DELETE ON entries BEGIN
	INSERT INTO entries_fts (entries_fts, rowid, text, reasoning, tool_name, tool_args, tool_result)
	VALUES ('delete', old.pk, old.text, old.reasoning, old.tool_name, old.tool_args, old.tool_result);
END;
CREATE TRIGGER entries_fts_update AFTER UPDATE OF text, reasoning, tool_name, tool_args, tool_result ON entries BEGIN
	INSERT INTO entries_fts (entries_fts, rowid, text, reasoning, tool_name, tool_args, tool_result)
	VALUES ('delete', old.pk, old.text, old.reasoning, old.tool_name, old.tool_args, old.tool_result);
	INSERT INTO entries_fts (rowid, text, reasoning, tool_name, tool_args, tool_result)
	VALUES (new.pk, new.text, new.reasoning, new.tool_name, new.tool_args, new.tool_result);
END;

-- Full-text index over the human metadata of a chat. tags holds the tags joined by newlines.
CREATE VIRTUAL TABLE chats_fts USING fts5 (
	title, description, summary, tags,
	content = 'chats', content_rowid = 'pk',
	tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TRIGGER chats_fts_insert AFTER INSERT ON chats BEGIN
	INSERT INTO chats_fts (rowid, title, description, summary, tags)
	VALUES (new.pk, new.title, new.description, new.summary, new.tags);
END;
CREATE TRIGGER chats_fts_delete AFTER DELETE ON chats BEGIN
	INSERT INTO chats_fts (chats_fts, rowid, title, description, summary, tags)
	VALUES ('delete', old.pk, old.title, old.description, old.summary, old.tags);
END;
CREATE TRIGGER chats_fts_update AFTER UPDATE OF title, description, summary, tags ON chats BEGIN
	INSERT INTO chats_fts (chats_fts, rowid, title, description, summary, tags)
	VALUES ('delete', old.pk, old.title, old.description, old.summary, old.tags);
	INSERT INTO chats_fts (rowid, title, description, summary, tags)
	VALUES (new.pk, new.title, new.description, new.summary, new.tags);
END;
