// Package loomcycletest builds deterministic databases of the loomcycle runtime's real schema
// (its SQLite store's migrate() and its PostgreSQL migrations: sessions with the human layer
// of migration 0057, runs with usage and cost, events as the recording emit path writes them)
// for tests and benchmarks. The events are what a run records: user_input segments, thinking
// and text deltas, tool_call {tool_use: {id, name, input}} answered by tool_result, usage,
// done (with reasoning and its signature), and the runtime's other kinds (steer, compaction,
// retry, error, prompt_snapshot, ...), with orphan results, boundary nanosecond timestamps and
// payloads over the importer's size limits. Nothing is fetched; the same Options always give
// the same rows.
package loomcycletest

import "strings"

// Dialect is the database engine a generated database is written for.
type Dialect int

const (
	// SQLite is loomcycle's default store: times are INTEGER Unix nanoseconds, payloads BLOB.
	SQLite Dialect = iota
	// Postgres is its other store: times are TIMESTAMPTZ (microseconds), except the session's
	// archived_at and summary_updated_at, BIGINT Unix nanoseconds; payloads BYTEA.
	Postgres
)

// Schema is the DDL of the three tables the importer reads, in d's types.
func Schema(d Dialect) []string {
	ts, blob, boolean, real, serial := "INTEGER", "BLOB", "INTEGER NOT NULL DEFAULT 0", "REAL", "INTEGER PRIMARY KEY AUTOINCREMENT"
	if d == Postgres {
		ts, blob, boolean, real, serial = "TIMESTAMPTZ", "BYTEA", "BOOLEAN NOT NULL DEFAULT FALSE", "DOUBLE PRECISION", "BIGSERIAL PRIMARY KEY"
	}
	r := strings.NewReplacer("$TS", ts, "$BLOB", blob, "$BOOL", boolean, "$REAL", real, "$SERIAL", serial)
	return []string{
		r.Replace(`CREATE TABLE sessions (
			id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL, agent TEXT NOT NULL, user_id TEXT, created_at $TS NOT NULL,
			title TEXT, description TEXT, tags TEXT, pinned $BOOL, archived_at BIGINT, summary TEXT, summary_updated_at BIGINT)`),
		r.Replace(`CREATE TABLE runs (
			id TEXT PRIMARY KEY, session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE, status TEXT NOT NULL,
			started_at $TS NOT NULL, completed_at $TS, stop_reason TEXT,
			input_tokens BIGINT NOT NULL DEFAULT 0, output_tokens BIGINT NOT NULL DEFAULT 0,
			cache_creation_tokens BIGINT NOT NULL DEFAULT 0, cache_read_tokens BIGINT NOT NULL DEFAULT 0,
			model TEXT, provider TEXT, error TEXT, agent_id TEXT, parent_agent_id TEXT, parent_run_id TEXT, user_id TEXT,
			last_heartbeat_at $TS, tenant_id TEXT, cost $REAL, cost_currency TEXT)`),
		`CREATE INDEX runs_by_session ON runs(session_id)`,
		r.Replace(`CREATE TABLE events (
			seq $SERIAL, session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
			run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE, ts $TS NOT NULL, type TEXT NOT NULL, payload $BLOB NOT NULL)`),
		`CREATE INDEX events_by_session ON events(session_id, seq)`,
	}
}
