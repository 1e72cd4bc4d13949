-- 0030: the marks of operations given up by `annals replicate retry --drop` (docs/REPLICATION.md,
-- "Dropping a refused operation"). One row per dropped operation, written in the drop's
-- transaction: its place and kind, what a repair withholds (entry_ids, a JSON array, of an
-- append; run_id of a run) and the remote's refusal, so `replicate verify` reports the lane as
-- given up and never sends the change again.
CREATE TABLE replication_given_up (
	chat_id    TEXT    NOT NULL,
	op_id      TEXT    NOT NULL,
	lane_seq   INTEGER NOT NULL,
	kind       TEXT    NOT NULL,
	entry_ids  TEXT    NOT NULL DEFAULT '[]',
	run_id     TEXT    NOT NULL DEFAULT '',
	code       TEXT    NOT NULL DEFAULT '',
	message    TEXT    NOT NULL DEFAULT '',
	dropped_at INTEGER NOT NULL,
	PRIMARY KEY (chat_id, op_id)
) WITHOUT ROWID;
