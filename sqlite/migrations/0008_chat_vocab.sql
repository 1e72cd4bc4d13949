-- 0008: the chat index's vocabulary, so that a prefix query can be expanded into the words it
-- stands for before it runs. FTS5 answers a prefix by merging the doclists of every word with
-- that prefix, again for every cursor; a search that opens one cursor per chat of its page (for
-- the snippets) would merge them once per chat. Expanded, each word seeks its own doclist.
CREATE VIRTUAL TABLE chat_fts_vocab USING fts5vocab ('chat_fts', 'row');
