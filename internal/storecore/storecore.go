// Package storecore is what the SQLite and PostgreSQL stores share beyond their SQL: the
// migration runner's bookkeeping, the WHERE builder with the owner constraint, the entry filter,
// the rescan walk, the embeddings' candidate query and the query view's fragments. (The
// single-op capture methods over a store's one write method are annals.CaptureOps, for any
// store.) It imports only the root.
package storecore
