-- 0006: each chat's incarnation, given at creation and different for every chat created under an
-- id, so that a write bound to the chat its caller read cannot land on a chat created in its
-- place after a delete (an INTEGER PRIMARY KEY may be reused by SQLite, so pk cannot serve).
ALTER TABLE chats ADD COLUMN incarnation INTEGER NOT NULL DEFAULT 0;
UPDATE chats SET incarnation = random();
