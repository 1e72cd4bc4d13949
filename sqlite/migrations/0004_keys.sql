-- 0004: API keys of the HTTP server (annals.KeyStore). Only the SHA-256 of a key's secret is
-- stored; the secret is shown once by `annals keys create` and never kept. A key carries the
-- principal it acts as: tenant, user, agent, role and allowed history scopes.
CREATE TABLE api_keys (
	pk         INTEGER PRIMARY KEY,
	id         TEXT    NOT NULL UNIQUE,
	name       TEXT    NOT NULL DEFAULT '',
	hash       BLOB    NOT NULL UNIQUE,
	tenant_id  TEXT    NOT NULL,
	user_id    TEXT    NOT NULL DEFAULT '',
	agent_id   TEXT    NOT NULL DEFAULT '',
	role       TEXT    NOT NULL,
	-- comma-separated scope names (self,user,tenant,global); '' denies history
	scopes     TEXT    NOT NULL DEFAULT '',
	created_at INTEGER NOT NULL,
	revoked_at INTEGER
);
