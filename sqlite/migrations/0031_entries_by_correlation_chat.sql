-- 0031: the chat of every entry carrying a correlation id, in the correlation's index.
-- A conversation's messages leave out the ledger chats (the lanius importer's ledger holds every
-- event of a correlation, which conversation answers as events, not messages): with chat_pk in
-- the index each entry is tested on it before its row is read, so a correlation of 620 ledger
-- events and no message costs 620 index entries, not 620 row seeks (issue 32, Speed). The older
-- index stays: it gives a correlation's events in capture (pk) order without a sort.
CREATE INDEX entries_by_correlation_chat ON entries (correlation_id, chat_pk) WHERE correlation_id <> '';
