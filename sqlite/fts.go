package sqlite

import (
	"strings"

	"github.com/annals-dev/annals"
)

// FTS5 compilation of a parsed query. Every token is emitted as a double-quoted FTS5 string,
// so nothing a person typed can be read as FTS5 syntax; operators come only from the tree.

// ftsTerm compiles one term: its tokens as a phrase, the last one optionally a prefix.
func ftsTerm(t *annals.TextExpr) string {
	quoted := make([]string, len(t.Tokens))
	for i, tok := range t.Tokens {
		quoted[i] = strings.ReplaceAll(tok, `"`, `""`)
	}
	s := `"` + strings.Join(quoted, " ") + `"`
	if t.Prefix {
		s += "*"
	}
	return s
}

// ftsExpr compiles a boolean tree for matching within one row. FTS5's NOT is binary, so a
// negation must sit in an AND beside at least one positive operand.
func ftsExpr(e *annals.TextExpr) (string, error) {
	switch e.Op {
	case annals.TextTerm:
		if len(e.Tokens) == 0 {
			return "", annals.Errorf(annals.EINVALID, "the query has an empty term")
		}
		return ftsTerm(e), nil
	case annals.TextOr:
		parts := make([]string, 0, len(e.Items))
		for _, it := range e.Items {
			if it.Op == annals.TextNot {
				return "", annals.Errorf(annals.EINVALID, "an exclusion (-word) cannot be one side of OR; combine it with words instead")
			}
			s, err := ftsExpr(it)
			if err != nil {
				return "", err
			}
			parts = append(parts, "("+s+")")
		}
		return strings.Join(parts, " OR "), nil
	case annals.TextAnd:
		var pos, neg []string
		for _, it := range e.Items {
			target := &pos
			if it.Op == annals.TextNot {
				target, it = &neg, it.Items[0]
			}
			s, err := ftsExpr(it)
			if err != nil {
				return "", err
			}
			*target = append(*target, "("+s+")")
		}
		if len(pos) == 0 {
			return "", errOnlyExclusions()
		}
		out := strings.Join(pos, " AND ")
		if len(neg) > 0 {
			out = "(" + out + ") NOT " + strings.Join(neg, " NOT ")
		}
		return out, nil
	case annals.TextNot:
		return "", errOnlyExclusions()
	}
	return "", annals.Errorf(annals.EINVALID, "unknown query node")
}

func errOnlyExclusions() error {
	return annals.Errorf(annals.EINVALID, "the query needs at least one word to search for besides exclusions")
}

// positiveTerms collects the terms that are not under a negation: they drive ranking and
// snippets.
func positiveTerms(e *annals.TextExpr, out []*annals.TextExpr) []*annals.TextExpr {
	if e == nil {
		return out
	}
	switch e.Op {
	case annals.TextTerm:
		return append(out, e)
	case annals.TextNot:
		return out
	}
	for _, it := range e.Items {
		out = positiveTerms(it, out)
	}
	return out
}

// ftsAny compiles "any of these terms" for ranking and snippets.
func ftsAny(terms []*annals.TextExpr) string {
	parts := make([]string, len(terms))
	for i, t := range terms {
		parts[i] = ftsTerm(t)
	}
	return strings.Join(parts, " OR ")
}

// withColumns restricts an FTS5 expression to some columns.
func withColumns(cols []string, expr string) string {
	if len(cols) == 0 {
		return expr
	}
	return "{" + strings.Join(cols, " ") + "} : (" + expr + ")"
}
