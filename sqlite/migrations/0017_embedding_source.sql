-- 0017: what a chat's vector was computed over, so the embedding worker finds the chats whose
-- transcript changed materially since (annals.EmbeddingStale; -1: written before this column,
-- re-embedded once), and the state of an embedder that learns from the history (embed.Learned:
-- its co-occurrence counts and word vectors, one row per name).
ALTER TABLE chat_embeddings ADD COLUMN source_entries INTEGER NOT NULL DEFAULT -1;

CREATE TABLE embedder_state (
	name       TEXT    PRIMARY KEY,
	data       BLOB    NOT NULL,
	updated_at INTEGER NOT NULL
);
