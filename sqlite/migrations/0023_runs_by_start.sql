-- 0023: runs by their start, for the usage report (docs/USAGE.md): a range of days reads the
-- runs that started in it instead of every run.
CREATE INDEX runs_by_start ON runs (started_at);
