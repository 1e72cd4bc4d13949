-- 0001: chats, entries, runs, embeddings and their full-text columns.
--
-- Conventions, shared with the SQLite schema so both backends answer the same:
-- * Times are bigint unix nanoseconds (UTC): exact round trips with Go's time.Time and with the
--   SQLite store, so `annals copy` between backends is lossless and keyset cursors compare
--   exactly. (timestamptz keeps microseconds only.)
-- * Identifiers are text COLLATE "C": ordering and range comparisons are byte-wise, as in SQLite,
--   whatever the database's default collation. The lanius view's channel prefix match relies on
--   it ("in/agent0" sorts right after every "in/agent/...").
-- * Free text that may legally hold a NUL character (titles, descriptions, summaries, attribute
--   values, entry text, reasoning, tool results) is bytea: PostgreSQL's text type cannot store
--   U+0000, and the contract says a stored value reads back exactly. JSON (tool arguments,
--   metadata) cannot hold a raw NUL and stays text, byte for byte (not jsonb, which reformats).
-- * Every table carries tenant_id, so the schema can be distributed or split by tenant.
-- * Full text: tsv columns hold tsvectors built by annals in Go (tokens split like SQLite's
--   unicode61 tokenizer, folded to lower case without accents, fields weighted A-D), so no text
--   search configuration, dictionary or extension is involved. See docs/POSTGRES.md.

CREATE TABLE chats (
	pk                  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	id                  text COLLATE "C" NOT NULL UNIQUE,
	tenant_id           text COLLATE "C" NOT NULL,
	user_id             text COLLATE "C" NOT NULL DEFAULT '',
	agent_id            text COLLATE "C" NOT NULL DEFAULT '',
	-- JSON object of the attributes, as written (read back whole); chat_attributes filters.
	attributes          text NOT NULL DEFAULT '{}',
	created_at          bigint NOT NULL,
	last_activity       bigint NOT NULL,
	status              text NOT NULL DEFAULT '',
	title               bytea NOT NULL DEFAULT '',
	-- title lower-cased by Go (all of Unicode), for title_contains.
	title_fold          bytea NOT NULL DEFAULT '',
	description         bytea NOT NULL DEFAULT '',
	tags                text[] COLLATE "C" NOT NULL DEFAULT '{}',
	pinned              boolean NOT NULL DEFAULT false,
	archived_at         bigint,
	summary             bytea NOT NULL DEFAULT '',
	summary_updated_at  bigint,
	last_seq            bigint NOT NULL DEFAULT 0,
	entry_count         bigint NOT NULL DEFAULT 0,
	entry_input_tokens  bigint NOT NULL DEFAULT 0,
	entry_output_tokens bigint NOT NULL DEFAULT 0,
	run_count           bigint NOT NULL DEFAULT 0,
	run_input_tokens    bigint NOT NULL DEFAULT 0,
	run_output_tokens   bigint NOT NULL DEFAULT 0,
	cost_usd            double precision NOT NULL DEFAULT 0
);
CREATE INDEX chats_by_tenant_activity ON chats (tenant_id, pinned DESC, last_activity DESC);
CREATE INDEX chats_by_activity ON chats (pinned DESC, last_activity DESC);

-- The GIN-indexed copy of a chat's human metadata: its tags and the tsvector of title (A),
-- description (B), summary (C) and tags (D). It lives apart from chats because a chat row is
-- rewritten on every append and run (counters, last activity): were the GIN-indexed columns
-- there, every such write would add their entries to the GIN indexes again. This row changes only
-- when the metadata does.
CREATE TABLE chat_meta (
	chat_pk   bigint PRIMARY KEY REFERENCES chats (pk) ON DELETE CASCADE,
	tenant_id text COLLATE "C" NOT NULL,
	tags      text[] COLLATE "C" NOT NULL DEFAULT '{}',
	meta_tsv  tsvector NOT NULL DEFAULT ''
);
-- A search scans a GIN index's pending list (recent insertions not yet merged) linearly; a small
-- limit keeps that scan short between autovacuums at a small cost to inserts.
CREATE INDEX chat_meta_tsv ON chat_meta USING gin (meta_tsv) WITH (gin_pending_list_limit = 512);
CREATE INDEX chat_meta_tags ON chat_meta USING gin (tags) WITH (gin_pending_list_limit = 512);

-- One row per attribute, so filters compare whole values (bytea: values may hold NUL) with bound
-- parameters.
CREATE TABLE chat_attributes (
	tenant_id text COLLATE "C" NOT NULL,
	chat_pk   bigint NOT NULL REFERENCES chats (pk) ON DELETE CASCADE,
	key       text COLLATE "C" NOT NULL,
	value     bytea NOT NULL,
	PRIMARY KEY (chat_pk, key)
);
CREATE INDEX chat_attributes_by_key_value ON chat_attributes (tenant_id, key, value);

CREATE TABLE entries (
	pk             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	tenant_id      text COLLATE "C" NOT NULL,
	chat_pk        bigint NOT NULL REFERENCES chats (pk) ON DELETE CASCADE,
	id             text COLLATE "C" NOT NULL,
	seq            bigint NOT NULL,
	kind           text NOT NULL,
	run_id         text COLLATE "C" NOT NULL DEFAULT '',
	source_ids     text[] COLLATE "C" NOT NULL DEFAULT '{}',
	channel        text COLLATE "C" NOT NULL DEFAULT '',
	correlation_id text COLLATE "C" NOT NULL DEFAULT '',
	time           bigint NOT NULL,
	text           bytea NOT NULL DEFAULT '',
	reasoning      bytea NOT NULL DEFAULT '',
	tool_name      text COLLATE "C" NOT NULL DEFAULT '',
	tool_call_id   text COLLATE "C" NOT NULL DEFAULT '',
	tool_args      text NOT NULL DEFAULT '',
	tool_result    bytea NOT NULL DEFAULT '',
	tool_outcome   text NOT NULL DEFAULT '',
	input_tokens   bigint NOT NULL DEFAULT 0,
	output_tokens  bigint NOT NULL DEFAULT 0,
	metadata       text NOT NULL DEFAULT '',
	-- text (A), reasoning (B), tool name and arguments (C), tool result (D).
	tsv            tsvector NOT NULL DEFAULT '',
	UNIQUE (chat_pk, seq),
	UNIQUE (chat_pk, id)
);
CREATE INDEX entries_tsv ON entries USING gin (tsv) WITH (gin_pending_list_limit = 1024);
CREATE INDEX entries_by_correlation ON entries (correlation_id) WHERE correlation_id <> '';
CREATE INDEX entries_by_time ON entries (time);
CREATE INDEX entries_by_chat_channel ON entries (chat_pk, channel) WHERE channel <> '';

-- Source ids, one per row, so a rewind finds its point by index.
CREATE TABLE entry_sources (
	tenant_id text COLLATE "C" NOT NULL,
	chat_pk   bigint NOT NULL,
	source_id text COLLATE "C" NOT NULL,
	entry_pk  bigint NOT NULL REFERENCES entries (pk) ON DELETE CASCADE,
	seq       bigint NOT NULL,
	PRIMARY KEY (chat_pk, source_id, seq)
);
CREATE INDEX entry_sources_by_entry ON entry_sources (entry_pk);

CREATE TABLE runs (
	pk            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	id            text COLLATE "C" NOT NULL UNIQUE,
	tenant_id     text COLLATE "C" NOT NULL,
	chat_pk       bigint NOT NULL REFERENCES chats (pk) ON DELETE CASCADE,
	status        text NOT NULL,
	model         text NOT NULL DEFAULT '',
	started_at    bigint NOT NULL,
	ended_at      bigint,
	input_tokens  bigint NOT NULL DEFAULT 0,
	output_tokens bigint NOT NULL DEFAULT 0,
	cost_usd      double precision NOT NULL DEFAULT 0
);
CREATE INDEX runs_by_chat ON runs (chat_pk, started_at);

-- One embedding per chat. tenant_id, user_id and agent_id are copied from the chat row (they are
-- immutable there), so the owner fold runs on this table's own columns. The vector is float32
-- little-endian bytes, the same encoding as SQLite's; cosine similarity is computed in Go over
-- the capped candidate set, so no extension (pgvector) is needed.
CREATE TABLE chat_embeddings (
	chat_pk    bigint PRIMARY KEY REFERENCES chats (pk) ON DELETE CASCADE,
	tenant_id  text COLLATE "C" NOT NULL,
	user_id    text COLLATE "C" NOT NULL DEFAULT '',
	agent_id   text COLLATE "C" NOT NULL DEFAULT '',
	model      text COLLATE "C" NOT NULL,
	dimension  integer NOT NULL,
	vector     bytea NOT NULL,
	updated_at bigint NOT NULL
);
CREATE INDEX chat_embeddings_by_tenant ON chat_embeddings (tenant_id, model);
