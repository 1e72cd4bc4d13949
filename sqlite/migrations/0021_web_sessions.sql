-- 0021: the web UI's browser sessions (docs/WEB.md), kept in the database so a restart signs
-- nobody out and every server of the database knows them: the hash of the cookie's token (never
-- the token), the hash of the API key the session acts as, and the expiry.
CREATE TABLE web_sessions (
	token_hash BLOB    PRIMARY KEY,
	key_hash   BLOB    NOT NULL,
	created_at INTEGER NOT NULL,
	expires_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX web_sessions_by_expiry ON web_sessions (expires_at);
