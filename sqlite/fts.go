package sqlite

import (
	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/query"
)

// FTS5 compilation goes through the query package's compiler, the one its fuzz test proves never
// yields an FTS5 syntax error: every token quoted, operators only from the tree.

// ftsCompile compiles a tree (optionally restricted to columns) to a MATCH string.
func ftsCompile(e *annals.TextExpr, cols []string) (string, error) {
	if e == nil {
		return "", annals.Errorf(annals.EINVALID, "the query has no searchable words")
	}
	return query.CompileFTS5(e, cols)
}

func errOnlyExclusions() error {
	return annals.Errorf(annals.EINVALID, "the query needs at least one word to search for besides exclusions")
}

// anyOf is the tree "any of these terms", for ranking and snippets.
func anyOf(terms []*annals.TextExpr) *annals.TextExpr {
	if len(terms) == 1 {
		return terms[0]
	}
	return &annals.TextExpr{Op: annals.TextOr, Items: terms}
}
