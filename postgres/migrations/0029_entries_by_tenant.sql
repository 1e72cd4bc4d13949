-- 0029: a tenant's entries, newest stored first. A member's search on the entry index (a phrase,
-- a field or entry-level filter, an entry search) filtered entries by tenant_id only after
-- reading each match of the full-text index from the table: a tenant holding 1% of the entries
-- paid for every tenant's matches (180k entries of `timeout` at 1M). With this index the planner
-- ANDs the tenant's entries into the full-text index's bitmap before reading any row, or walks
-- the tenant's own entries newest first (the walk of search_entry_ranking.go), so the cost
-- follows the tenant's share (issue 33 items 3 and 6).
CREATE INDEX entries_by_tenant ON entries (tenant_id, pk);
