-- 0033: whether the database keeps the change feed (docs/REPLICATION.md, "The change feed and
-- the mirror"). Only a database that serves a feed pays for it in its write transactions: one
-- becomes a feed source with its first replicated operation or its first feed read, and the
-- chats it holds then enter the feed (a backfill). A database that had applied replicated
-- operations already serves one (its feed, kept since 0029, stays on); any other turns it off.
CREATE TABLE feed_state (
	singleton INTEGER NOT NULL PRIMARY KEY CHECK (singleton = 1),
	serving   INTEGER NOT NULL
);
INSERT INTO feed_state (singleton, serving) VALUES (1, EXISTS (SELECT 1 FROM replica_ops));
