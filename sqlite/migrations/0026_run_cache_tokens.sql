-- 0026: a run's cache tokens and context size (issue 27, docs/USAGE.md): the part of
-- input_tokens read from and written to a prompt cache, and the prompt of the run's last model
-- call. Zero is unknown (runs recorded before this, and sources that do not say).
ALTER TABLE runs ADD COLUMN cache_read_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN cache_creation_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN context_tokens INTEGER NOT NULL DEFAULT 0;
