-- 0027: whether the database keeps the change feed (docs/REPLICATION.md, "The change feed and
-- the mirror"). Only a database that serves a feed pays for it in its write transactions: one
-- becomes a feed source with its first replicated operation or its first feed read, and the
-- chats it holds then enter the feed (a backfill). A database that had applied replicated
-- operations already serves one (its feed, kept since 0023, stays on); any other turns it off.
CREATE TABLE feed_state (
	singleton integer PRIMARY KEY CHECK (singleton = 1),
	serving   boolean NOT NULL
);
INSERT INTO feed_state (singleton, serving) VALUES (1, EXISTS (SELECT 1 FROM replica_ops));

-- annals_feed_serving answers whether the feed is on for a writer that has not seen it on, and
-- holds the shared side of the schema's feed lock until the writer's transaction ends: the
-- switching on takes the exclusive side, so it waits for every writer that found the feed off
-- and its backfill sees their changes. PL/pgSQL reads the flag with a snapshot taken after the
-- lock is granted (a plain SELECT would read it as of the statement's start).
CREATE FUNCTION annals_feed_serving() RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
BEGIN
	PERFORM pg_advisory_xact_lock_shared(hashtext('annals.feed.' || current_schema()));
	RETURN (SELECT serving FROM feed_state WHERE singleton = 1);
END
$$;
