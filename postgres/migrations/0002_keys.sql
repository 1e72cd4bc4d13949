-- 0002: API keys of the HTTP server (annals.KeyStore). Only the SHA-256 of a key's secret is
-- stored; the secret is shown once by `annals keys create` and never kept. A key carries the
-- principal it acts as: tenant, user, agent, role and allowed history scopes.
CREATE TABLE api_keys (
	pk         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	id         text COLLATE "C" NOT NULL UNIQUE,
	name       text NOT NULL DEFAULT '',
	hash       bytea NOT NULL UNIQUE,
	tenant_id  text COLLATE "C" NOT NULL,
	user_id    text COLLATE "C" NOT NULL DEFAULT '',
	agent_id   text COLLATE "C" NOT NULL DEFAULT '',
	role       text NOT NULL,
	-- allowed history scopes (self, user, tenant, global); empty denies history
	scopes     text[] NOT NULL DEFAULT '{}',
	created_at bigint NOT NULL,
	revoked_at bigint
);
