package sqlite

import (
	"database/sql/driver"
	"sync"

	"modernc.org/sqlite"

	"github.com/annals-dev/annals/query"
)

// indexTextFunc is the SQL function the full-text indexes are written through (migration
// 0013): query.IndexText, which hides the words of redaction placeholders from search.
const indexTextFunc = "annals_index_text"

// registerIndexText registers indexTextFunc with the driver. The driver keeps its functions
// for every connection it opens afterwards, process-wide, and refuses a second registration of
// a name, so it happens once, before the first connection of any store (a documented exception
// to the no-global-state rule: the driver offers no per-connection registration).
var registerIndexText = sync.OnceValue(func() error {
	return sqlite.RegisterDeterministicScalarFunction(indexTextFunc, 1, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		switch v := args[0].(type) {
		case string:
			return query.IndexText(v), nil
		case []byte:
			return query.IndexText(string(v)), nil
		}
		return args[0], nil
	})
})

// indexed is the SQL expression that feeds a text column to the full-text index: the column
// itself when it holds no placeholder (checked in SQL, so the common case never calls Go),
// else indexTextFunc of it. Every writer of entries_fts, chats_fts and chat_fts uses it (the
// triggers of migration 0013 spell the same expression out).
func indexed(col string) string {
	return `CASE WHEN instr(` + col + `, '[redacted:') OR instr(` + col + `, '[private]') THEN ` + indexTextFunc + `(` + col + `) ELSE ` + col + ` END`
}
