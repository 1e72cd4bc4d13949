// Package storecore is what the SQLite and PostgreSQL stores share beyond their SQL: the
// migration runner's bookkeeping, the WHERE builder with the owner constraint, the entry filter,
// the rescan walk, the embeddings' candidate query, the query view's fragments, and the read
// back of a one-op capture (ReadBack), the expansion of prefix terms, the replication outbox's
// operations and the in-process signal of their commits (OutboxSignal). It imports only the root
// and query.
package storecore
