-- 0024: the marks of operations given up by `annals replicate retry --drop` (docs/REPLICATION.md,
-- "Dropping a refused operation"). One row per dropped operation, written in the drop's
-- transaction: its place and kind, what a repair withholds (entry_ids of an append; run_id of a
-- run) and the remote's refusal, so `replicate verify` reports the lane as given up and never
-- sends the change again.
CREATE TABLE replication_given_up (
	chat_id    text    NOT NULL,
	op_id      text    NOT NULL,
	lane_seq   bigint  NOT NULL,
	kind       text    NOT NULL,
	entry_ids  text[]  NOT NULL DEFAULT '{}',
	run_id     text    NOT NULL DEFAULT '',
	code       text    NOT NULL DEFAULT '',
	message    text    NOT NULL DEFAULT '',
	dropped_at bigint  NOT NULL,
	PRIMARY KEY (chat_id, op_id)
);
