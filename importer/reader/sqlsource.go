package reader

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver the database sources are read with
)

// sqliteMagic starts every SQLite 3 database file.
var sqliteMagic = []byte("SQLite format 3\x00")

// IsSQLite reports whether head is the start of a SQLite database file.
func IsSQLite(head []byte) bool { return bytes.HasPrefix(head, sqliteMagic) }

// OpenSourceDB opens a SQLite source strictly read-only: mode=ro makes the engine refuse every
// write, so a bug here can never damage the history the user is importing from. The URI is
// built with net/url so that a path holding '?' or '#' cannot smuggle in other parameters.
func OpenSourceDB(ctx context.Context, path string) (*sql.DB, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("opening %s read-only: %w", path, err)
	}
	// An absolute path makes the URI file:///..., never file://host/... .
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs), RawQuery: "mode=ro&_pragma=busy_timeout(5000)"}
	db, err := sql.Open("sqlite", u.String())
	if err != nil {
		return nil, fmt.Errorf("opening %s read-only: %w", path, err)
	}
	// One connection: the parsers read sequentially, and a source database is someone else's
	// file, so we hold as few locks on it as we can.
	db.SetMaxOpenConns(1)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("opening %s read-only: %w", path, err)
	}
	return db, nil
}

// SQLiteTables returns the names of the tables (and views) of db, lowercased.
func SQLiteTables(ctx context.Context, db *sql.DB) (map[string]bool, error) {
	rows, err := db.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type IN ('table', 'view')`)
	if err != nil {
		return nil, fmt.Errorf("listing tables: %w", err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, fmt.Errorf("listing tables: %w", err)
		}
		out[strings.ToLower(name)] = true
	}
	return out, rows.Err()
}

// DetectSQLiteTables reports whether the file at path is a SQLite database holding every one of
// the tables. Detect uses it: the head only says "SQLite", the tables say whose database it is.
func DetectSQLiteTables(path string, head []byte, tables ...string) bool {
	if !IsSQLite(head) {
		return false
	}
	ctx := context.Background()
	db, err := OpenSourceDB(ctx, path)
	if err != nil {
		return false
	}
	defer db.Close()
	have, err := SQLiteTables(ctx, db)
	if err != nil {
		return false
	}
	for _, t := range tables {
		if !have[t] {
			return false
		}
	}
	return true
}

// TableColumns returns the lowercased column names of table (bound as a parameter of
// pragma_table_info, never spliced into SQL).
func TableColumns(ctx context.Context, db *sql.DB, table string) (map[string]bool, error) {
	return QueryColumns(ctx, db, `SELECT name FROM pragma_table_info(?)`, table)
}

// QueryColumns runs query, which lists a table's column names with the table as its one
// parameter (SQLite's pragma_table_info, PostgreSQL's information_schema), and returns them
// lowercased.
func QueryColumns(ctx context.Context, q interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}, query, table string) (map[string]bool, error) {
	rows, err := q.QueryContext(ctx, query, table)
	if err != nil {
		return nil, fmt.Errorf("reading the columns of %s: %w", table, err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, fmt.Errorf("reading the columns of %s: %w", table, err)
		}
		out[strings.ToLower(name)] = true
	}
	return out, rows.Err()
}

// PickColumn returns the first of the candidate names that cols holds, or "". The schemas of the
// reference systems are inferred from their documentation, so each field accepts the few names a
// reasonable schema would give it (session_id or session, type or event_type, ...). The result
// is always one of the candidates, constants of this package, so the parsers may quote it into
// an ORDER BY: no name read from a source database ever reaches SQL text.
func PickColumn(cols map[string]bool, candidates ...string) string {
	for _, c := range candidates {
		if cols[c] {
			return c
		}
	}
	return ""
}

// RowMap reads the current row of rows into a map from lowercased column name to value, with
// []byte turned into string, so the parsers can look fields up by name whatever the column
// order or the set of optional columns is.
func RowMap(rows *sql.Rows, cols []string) (map[string]any, error) {
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return nil, err
	}
	m := make(map[string]any, len(cols))
	for i, c := range cols {
		v := vals[i]
		if b, ok := v.([]byte); ok {
			v = string(b)
		}
		m[strings.ToLower(c)] = v
	}
	return m, nil
}

// QueryMaps runs query and returns every row as a map (see rowMap). The source tables are
// small next to what the importer writes (one user's history), so reading a table whole keeps
// the parsers simple: they join in memory instead of issuing a query per row.
func QueryMaps(ctx context.Context, db *sql.DB, query string, args ...any) ([]map[string]any, error) {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out []map[string]any
	for rows.Next() {
		m, err := RowMap(rows, cols)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// ColString returns the value of a column as a string ("" for NULL or absent).
func ColString(m map[string]any, col string) string {
	if col == "" {
		return ""
	}
	switch v := m[col].(type) {
	case nil:
		return ""
	case string:
		return v
	case int64:
		return fmt.Sprint(v)
	case float64:
		return fmt.Sprint(v)
	case bool:
		if v {
			return "1"
		}
		return "0"
	default:
		return fmt.Sprint(v)
	}
}

// ColInt returns the value of a column as an integer (0 for NULL, absent or not a number).
func ColInt(m map[string]any, col string) int64 {
	if col == "" {
		return 0
	}
	switch v := m[col].(type) {
	case int64:
		return v
	case float64:
		return int64(v)
	case string:
		var n int64
		if _, err := fmt.Sscan(v, &n); err == nil {
			return n
		}
	case bool:
		if v {
			return 1
		}
	}
	return 0
}

// ColFloat returns the value of a column as a float (0 for NULL, absent or not a number).
func ColFloat(m map[string]any, col string) float64 {
	if col == "" {
		return 0
	}
	switch v := m[col].(type) {
	case int64:
		return float64(v)
	case float64:
		return v
	case string:
		var f float64
		if _, err := fmt.Sscan(v, &f); err == nil {
			return f
		}
	}
	return 0
}

// ColBool reads a boolean column: SQLite keeps booleans as 0/1 integers, some schemas as text.
func ColBool(m map[string]any, col string) bool {
	switch strings.ToLower(ColString(m, col)) {
	case "1", "true", "yes", "t":
		return true
	}
	return false
}

// ColTime reads a time column: RFC 3339 text, SQLite's "YYYY-MM-DD HH:MM:SS" text, or a Unix
// epoch in seconds, milliseconds, microseconds or nanoseconds.
func ColTime(m map[string]any, col string) time.Time {
	if col == "" {
		return time.Time{}
	}
	switch v := m[col].(type) {
	case int64:
		return ParseTime(float64(v))
	case float64:
		return ParseTime(v)
	case time.Time:
		return v.UTC()
	case string:
		if t := ParseTime(v); !t.IsZero() {
			return t
		}
		var f float64
		if _, err := fmt.Sscan(v, &f); err == nil && !strings.ContainsAny(v, "-:T ") {
			return ParseTime(f)
		}
	}
	return time.Time{}
}

// RawJSON returns s as JSON when it is a valid JSON document, and else s as a JSON string, so a
// column that should hold JSON but holds plain text still ends up as valid metadata/arguments.
func RawJSON(s string) json.RawMessage {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	if json.Valid([]byte(s)) {
		return ValidJSON(json.RawMessage(s))
	}
	b, _ := json.Marshal(ValidText(s))
	return b
}
