-- 0007: redaction placeholders are not words. The store builds every tsvector from
-- query.IndexText, in which a "[redacted:<kind>]" or "[private]" placeholder's words are tokens
-- no query can name (docs/REDACTION.md). Rows written before hold vectors with those words;
-- they are queued here and re-indexed by the store in Go when it opens
-- (postgres/reindex.go), since SQL cannot build annals's vectors.
CREATE TABLE placeholder_reindex (
	entry_pk bigint,
	chat_pk  bigint
);
INSERT INTO placeholder_reindex (entry_pk)
SELECT pk FROM entries
WHERE position(convert_to('[redacted:', 'UTF8') IN text) > 0 OR position(convert_to('[private]', 'UTF8') IN text) > 0
	OR position(convert_to('[redacted:', 'UTF8') IN reasoning) > 0 OR position(convert_to('[private]', 'UTF8') IN reasoning) > 0
	OR position(convert_to('[redacted:', 'UTF8') IN tool_result) > 0 OR position(convert_to('[private]', 'UTF8') IN tool_result) > 0
	OR strpos(tool_args, '[redacted:') > 0 OR strpos(tool_args, '[private]') > 0
	OR strpos(tool_name, '[redacted:') > 0 OR strpos(tool_name, '[private]') > 0;
INSERT INTO placeholder_reindex (chat_pk)
SELECT c.pk FROM chats c JOIN chat_meta m ON m.chat_pk = c.pk
WHERE position(convert_to('[redacted:', 'UTF8') IN c.title) > 0 OR position(convert_to('[private]', 'UTF8') IN c.title) > 0
	OR position(convert_to('[redacted:', 'UTF8') IN c.description) > 0 OR position(convert_to('[private]', 'UTF8') IN c.description) > 0
	OR position(convert_to('[redacted:', 'UTF8') IN c.summary) > 0 OR position(convert_to('[private]', 'UTF8') IN c.summary) > 0
	OR strpos(array_to_string(m.tags, E'\n'), '[redacted:') > 0 OR strpos(array_to_string(m.tags, E'\n'), '[private]') > 0;
