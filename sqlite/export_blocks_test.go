package sqlite

import "context"

// BlockForTest is one sealed block of a chat's search document: its rowid, the entry pks it
// holds and its FTS5 size record (token counts per column), which changes if it is rewritten.
type BlockForTest struct {
	Doc, Lo, Hi int64
	Size        string
}

// BlocksForTest lists the sealed blocks of chat id in entry order, and the rowid of its head.
func (db *DB) BlocksForTest(ctx context.Context, id string) ([]BlockForTest, int64, error) {
	rows, err := db.reader.QueryContext(ctx, `SELECT b.doc, b.lo, b.hi, hex(s.sz) FROM chat_blocks b
		JOIN chats c ON c.pk = b.chat_pk LEFT JOIN chat_fts_docsize s ON s.id = b.doc WHERE c.id = ? ORDER BY b.lo`, id)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []BlockForTest
	for rows.Next() {
		var b BlockForTest
		if err := rows.Scan(&b.Doc, &b.Lo, &b.Hi, &b.Size); err != nil {
			return nil, 0, err
		}
		out = append(out, b)
	}
	var head int64
	err = db.reader.QueryRowContext(ctx, `SELECT d.doc FROM chat_docs d JOIN chats c ON c.pk = d.chat_pk WHERE c.id = ?`, id).Scan(&head)
	return out, head, err
}

// QueryRowForTest scans one row of query on a reader into dest.
func (db *DB) QueryRowForTest(ctx context.Context, query string, dest ...any) error {
	return db.reader.QueryRowContext(ctx, query).Scan(dest...)
}

// FlushForTest runs an empty write transaction, which rebuilds the dirty chats' documents.
func (db *DB) FlushForTest(ctx context.Context) error {
	return db.writeTx(ctx, func(*sqlTx) error { return nil })
}
