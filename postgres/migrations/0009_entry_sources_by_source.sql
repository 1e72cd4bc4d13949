-- The query view finds an imported message by its source system's id (the reference's message
-- ids) in any chat in scope: one index probe, as SQLite's entry_sources_by_source.
CREATE INDEX entry_sources_by_source ON entry_sources (tenant_id, source_id);
