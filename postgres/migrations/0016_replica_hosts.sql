-- 0016: curation from several hosts (docs/REPLICATION.md, "Curation from several hosts").
--
-- replica_lanes holds one lane per chat and host: a chat created by one host may be curated by
-- others, each in its own lane (host_id is the lane's host). replica_fields keeps, per chat and
-- field of the human layer, the stamp (hybrid logical clock, then host id) of the change whose
-- value the field holds; a replicated curation sets a field only with a later stamp.
-- replication_host.hlc is the last hybrid logical clock this host gave a curation.
ALTER TABLE replica_lanes DROP CONSTRAINT replica_lanes_pkey;
ALTER TABLE replica_lanes ADD PRIMARY KEY (chat_id, host_id);

CREATE TABLE replica_fields (
	chat_id text   NOT NULL,
	field   text   NOT NULL,
	hlc     bigint NOT NULL,
	host_id text   NOT NULL,
	PRIMARY KEY (chat_id, field)
);

ALTER TABLE replication_host ADD COLUMN hlc bigint NOT NULL DEFAULT 0;
