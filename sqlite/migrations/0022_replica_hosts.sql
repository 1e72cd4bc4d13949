-- 0022: curation from several hosts (docs/REPLICATION.md, "Curation from several hosts").
--
-- replica_lanes holds one lane per chat and host: a chat created by one host may be curated by
-- others, each in its own lane (host_id is the lane's host). replica_fields keeps, per chat and
-- field of the human layer, the stamp (hybrid logical clock, then host id) of the change whose
-- value the field holds; a replicated curation sets a field only with a later stamp.
-- replication_host.hlc is the last hybrid logical clock this host gave a curation.
CREATE TABLE replica_lanes_new (
	chat_id     TEXT    NOT NULL,
	host_id     TEXT    NOT NULL DEFAULT '',
	tenant_id   TEXT    NOT NULL DEFAULT '',
	last_seq    INTEGER NOT NULL,
	last_digest TEXT    NOT NULL,
	deleted     INTEGER NOT NULL DEFAULT 0,
	updated_at  INTEGER NOT NULL,
	PRIMARY KEY (chat_id, host_id)
) WITHOUT ROWID;
INSERT INTO replica_lanes_new (chat_id, host_id, tenant_id, last_seq, last_digest, deleted, updated_at)
	SELECT chat_id, host_id, tenant_id, last_seq, last_digest, deleted, updated_at FROM replica_lanes;
DROP TABLE replica_lanes;
ALTER TABLE replica_lanes_new RENAME TO replica_lanes;

CREATE TABLE replica_fields (
	chat_id TEXT    NOT NULL,
	field   TEXT    NOT NULL,
	hlc     INTEGER NOT NULL,
	host_id TEXT    NOT NULL,
	PRIMARY KEY (chat_id, field)
) WITHOUT ROWID;

ALTER TABLE replication_host ADD COLUMN hlc INTEGER NOT NULL DEFAULT 0;
