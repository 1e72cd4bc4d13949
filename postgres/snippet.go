package postgres

import (
	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/query"
)

// buildSnippet is the stores' shared snippet (query.Snippet) with PostgreSQL's lexemes, so that
// a snippet highlights what the index matched and reads the same as SQLite's.
func buildSnippet(fields []string, terms []*annals.TextExpr, open, shut string) string {
	return query.Snippet(fields, terms, lexeme, open, shut)
}
