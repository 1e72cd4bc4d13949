-- 0003: each chat's incarnation, given at creation and different for every chat created under an
-- id, so that a write bound to the chat its caller read cannot land on a chat created in its
-- place after a delete. Existing chats take their (never reused) pk.
ALTER TABLE chats ADD COLUMN incarnation bigint NOT NULL DEFAULT 0;
UPDATE chats SET incarnation = pk;
