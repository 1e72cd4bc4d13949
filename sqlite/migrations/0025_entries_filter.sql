-- 0025: what a search needs of an entry besides its text, in an index of its own: its chat, kind,
-- tool (lower-cased, as the tool: filter compares it), time and size in bytes (entryBytes in
-- sqlite/chatdocs_blocks.go, by which a chat search picks the entries it quotes), keyed by the
-- entry's pk.
--
-- A search that checks a matching entry against its chat or an entry-level filter (role:,
-- tool:, after:, before:, the exact totals of those searches, an entry search's count) looked
-- each match up in entries, whose rows hold the whole transcript: a row per page or less, so
-- every lookup descended a deep tree and read a page of text for a few bytes. The same lookup in
-- this index reads a few hundred entries per page (issue 33 item 2: the count of
-- `tool:Bash timeout`'s matching entries, read through the memory map as the store reads, took
-- 25-28 -> 21 ms of CPU at 100k entries and 270-330 -> 200-250 ms at 1M). The searches name it
-- with INDEXED BY (sqlite/search_filter.go), since SQLite always prefers the rowid for `pk = ?`.
--
-- Entries are appended in pk order, so writing it is an append to its last page. On a large
-- database the upgrade builds it once (one pass over entries).
CREATE INDEX entries_filter ON entries (pk, chat_pk, kind, lower(tool_name), time,
	(octet_length(text) + octet_length(reasoning) + octet_length(tool_name) + octet_length(tool_args) + octet_length(tool_result)));
