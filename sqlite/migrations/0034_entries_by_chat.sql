-- 0034: every entry by its chat, in pk order (the index's implicit rowid column), so a chat's
-- first and last entry pk are one seek each. A search reads the page chats' matching entries
-- within each chat's pk range of the entry index (pageHits, recountMatches); UNIQUE (chat_pk,
-- seq) gives the range only by reading every entry of the chat: 10 ms for a page holding the
-- 10,000-entry chat of the 1M bench, 4 ms for fifty chats of ~220 entries (issue 33).
CREATE INDEX entries_by_chat ON entries (chat_pk);
