-- 0027: a run's kind (annals.RunKind): '' is the chat's own run; 'recap' and 'embed' are calls
-- annals made for the chat (a recap or digest, an embedding). Their tokens and cost count in the
-- chat's totals, but not as its activity: the chat's status and last activity follow its own
-- runs only. The recap runs recorded before this migration (id 'recap-<chat id>-<start>') are
-- marked, and the status of their chats recomputed from the chat's own runs.
ALTER TABLE runs ADD COLUMN kind TEXT NOT NULL DEFAULT '';

UPDATE runs SET kind = 'recap'
WHERE id LIKE 'recap-%'
	AND substr(id, 1, length((SELECT c.id FROM chats c WHERE c.pk = runs.chat_pk)) + 7)
		= 'recap-' || (SELECT c.id FROM chats c WHERE c.pk = runs.chat_pk) || '-';

UPDATE chats SET status = CASE
		WHEN EXISTS (SELECT 1 FROM runs r WHERE r.chat_pk = chats.pk AND r.kind = '' AND r.status = 'running') THEN 'running'
		ELSE coalesce((SELECT r.status FROM runs r WHERE r.chat_pk = chats.pk AND r.kind = ''
			ORDER BY r.started_at DESC, r.pk DESC LIMIT 1), '') END
WHERE pk IN (SELECT chat_pk FROM runs WHERE kind = 'recap');
