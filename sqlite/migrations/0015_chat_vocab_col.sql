-- 0015: the chat index's vocabulary by column, so that a prefix's expansion (sqlite/prefix.go)
-- ranks words by the documents holding them in text columns and never picks an owner column
-- token (t<hex tenant>, u<hex user>, a<hex agent>): those are in most documents and would take
-- the places of the words a short prefix (t*, a*, u*) is typed for.
CREATE VIRTUAL TABLE chat_fts_vocab_col USING fts5vocab ('chat_fts', 'col');
