-- 0014: one learned model per tenant (docs/SECURITY.md, "One learned model per tenant"). The
-- learned embedder's state was one row for the whole database, its word statistics counted over
-- every tenant's transcripts: a side channel between tenants. The state is now keyed by tenant.
-- The shared state is dropped, not split (its counts cannot be told apart by tenant), and so are
-- the vectors it made (model annals-learned-v1-…): the embedding worker of annals serve, or
-- annals reindex --embeddings, learns each tenant's model from that tenant's chats and embeds
-- them again; until then related and hybrid search rank nothing learned.
DROP TABLE embedder_state;

CREATE TABLE embedder_state (
	tenant_id  text COLLATE "C" NOT NULL,
	name       text COLLATE "C" NOT NULL,
	data       bytea NOT NULL,
	updated_at bigint NOT NULL,
	PRIMARY KEY (tenant_id, name)
);

DELETE FROM chat_embeddings WHERE model LIKE 'annals-learned-v1-%';
