package query_test

import (
	"database/sql"
	"errors"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/query"

	_ "modernc.org/sqlite"
)

// ftsRows is the text the FTS5 tests search, by rowid: text and tool_name columns.
var ftsRows = map[int64][2]string{
	1:  {"visit emag.ro today", ""},
	2:  {"snake-case naming and foo_bar", ""},
	3:  {"panic: runtime error: index out of range [3] with length 3", ""},
	4:  {"open file.go:123 and see http://example.com/a?b=c", ""},
	5:  {"I don't like C++ at 192.168.0.1", ""},
	6:  {"Café au lait in Ştefan's kitchen", ""},
	7:  {"foo food fool", "Bash"},
	8:  {"the quick brown fox", ""},
	9:  {"brown bear", "Read"},
	10: {"git push --force", ""},
	11: {"this or that", ""},
}

// MustOpenFTS opens an in-memory SQLite database with an FTS5 table tokenized like annals'
// indexes (unicode61 remove_diacritics 2), holding ftsRows. The compiled queries run against it
// prove that no query reaches the engine as a syntax error.
func MustOpenFTS(tb testing.TB) *sql.DB {
	tb.Helper()
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		tb.Fatal(err)
	}
	// One connection: every connection to ":memory:" would be a database of its own.
	db.SetMaxOpenConns(1)
	tb.Cleanup(func() { db.Close() })
	if _, err := db.Exec(`CREATE VIRTUAL TABLE t USING fts5(text, tool_name, tokenize = 'unicode61 remove_diacritics 2')`); err != nil {
		tb.Fatal(err)
	}
	for id, r := range ftsRows {
		if _, err := db.Exec(`INSERT INTO t (rowid, text, tool_name) VALUES (?, ?, ?)`, id, r[0], r[1]); err != nil {
			tb.Fatal(err)
		}
	}
	return db
}

// matchIDs runs a compiled MATCH string and returns the matching rowids in order.
func matchIDs(db *sql.DB, match string) ([]int64, error) {
	rows, err := db.Query(`SELECT rowid FROM t WHERE t MATCH ? ORDER BY rowid`, match)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// mustParse parses s or fails the test.
func mustParse(tb testing.TB, s string) *query.Query {
	tb.Helper()
	q, err := query.Parse(s)
	if err != nil {
		tb.Fatalf("Parse(%q): %v", s, err)
	}
	return q
}

// checkInvalid fails unless err is an *annals.Error with code invalid whose message contains
// every want.
func checkInvalid(tb testing.TB, input string, err error, want ...string) {
	tb.Helper()
	var ae *annals.Error
	if !errors.As(err, &ae) || ae.Code != annals.EINVALID {
		tb.Fatalf("Parse(%q) error = %#v, want an *annals.Error with code invalid", input, err)
	}
	for _, w := range want {
		if !strings.Contains(ae.Message, w) {
			tb.Errorf("Parse(%q) message = %q, want it to contain %q", input, ae.Message, w)
		}
	}
}

// checkFTS5Syntax fails unless everything outside double-quoted strings in a compiled MATCH
// string is syntax the compiler writes: parentheses, AND, OR, NOT, the prefix star and a column
// filter. It is the structural half of "no user input reaches FTS5 as syntax".
func checkFTS5Syntax(tb testing.TB, match string, columns []string) {
	tb.Helper()
	s := match
	if len(columns) > 0 {
		head := "{" + strings.Join(columns, " ") + "} : ("
		if !strings.HasPrefix(s, head) || !strings.HasSuffix(s, ")") {
			tb.Fatalf("compiled %q does not start with the column filter %q", match, head)
		}
		s = s[len(head) : len(s)-1]
	}
	var outside strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '*' && (i == 0 || s[i-1] != '"') {
			tb.Fatalf("compiled %q has a * that does not follow a quoted string", match)
		}
		if s[i] != '"' {
			outside.WriteByte(s[i])
			continue
		}
		// Skip a quoted string; "" inside it is an escaped quote.
		for i++; i < len(s); i++ {
			if s[i] == '"' {
				if i+1 < len(s) && s[i+1] == '"' {
					i++
					continue
				}
				break
			}
		}
		if i >= len(s) {
			tb.Fatalf("compiled %q has an unterminated string", match)
		}
		outside.WriteString(" S ")
	}
	for _, f := range strings.FieldsFunc(outside.String(), func(r rune) bool { return r == ' ' || r == '(' || r == ')' }) {
		switch f {
		case "S", "*", "AND", "OR", "NOT":
		default:
			tb.Fatalf("compiled %q has %q outside a quoted string", match, f)
		}
	}
}
