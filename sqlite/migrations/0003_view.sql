-- 0003: indexes for the read-only history view (POST /query).
-- Search pages walk entries newest first: with an index on time a page stops after its limit
-- instead of sorting every entry in scope.
CREATE INDEX entries_by_time ON entries (time);
-- Agent linkage (a chat has an entry on in/agent/<noun>/...) is a channel range inside one chat:
-- this index answers it with one seek per chat, and lets the agents query skip from noun to
-- noun instead of reading every entry. Partial: most imported entries carry no channel, and the
-- queries repeat channel <> '' so the planner may use it.
CREATE INDEX entries_by_chat_channel ON entries (chat_pk, channel) WHERE channel <> '';
