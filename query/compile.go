package query

import (
	"strings"

	"github.com/annals-dev/annals"
)

// CompileFTS5 compiles a text expression (the tree an annals.SearchFilter carries, the one
// input of both compilers) to an SQLite FTS5 MATCH string, to be bound as a
// parameter (never spliced into SQL). Every token is a double-quoted FTS5 string, so no user
// input is read as FTS5 syntax; a term is one quoted phrase ("emag ro"), a prefix term ends in *
// after the quote ("emag r"*); AND, OR, NOT and parentheses come from the tree only.
//
// FTS5's NOT is binary, so an And with exclusions compiles to (positives) NOT (x) NOT (y). Trees
// that FTS5 cannot express (an exclusion alone or inside OR) are refused as invalid, as Parse
// refuses them. When columns is not empty the expression is restricted to those columns:
// {col1 col2} : (...); column names must be plain identifiers.
func CompileFTS5(e *annals.TextExpr, columns []string) (string, error) {
	if err := check(e); err != nil {
		return "", err
	}
	var b strings.Builder
	if len(columns) > 0 {
		b.WriteByte('{')
		for i, c := range columns {
			if !isIdent(c) {
				return "", annals.Errorf(annals.EINVALID, "column %q is not a plain identifier", c)
			}
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(c)
		}
		b.WriteString("} : (")
		fts5(&b, e)
		b.WriteByte(')')
		return b.String(), nil
	}
	fts5(&b, e)
	return b.String(), nil
}

// fts5 writes a checked expression. Compound items are written before terms: AND and OR do not
// care about order, and FTS5's parser (a fixed-size LALR stack) needs far less room for
// "(... deep ...) AND x" than for "x AND (... deep ...)", which keeps every query within
// MaxDepth well inside its limit.
func fts5(b *strings.Builder, e *annals.TextExpr) {
	switch e.Op {
	case annals.TextTerm:
		b.WriteByte('"')
		for i, t := range e.Tokens {
			if i > 0 {
				b.WriteByte(' ')
			}
			// Tokens hold only letters and digits, but a quote is escaped the FTS5 way anyway,
			// so that the quoting never depends on what Tokenize lets through.
			b.WriteString(strings.ReplaceAll(t, `"`, `""`))
		}
		b.WriteByte('"')
		if e.Prefix {
			b.WriteByte('*')
		}
	case annals.TextOr:
		writeJoined(b, compoundFirst(e.Items), " OR ")
	case annals.TextAnd:
		var pos, neg []*annals.TextExpr
		for _, it := range e.Items {
			if it.Op == annals.TextNot {
				neg = append(neg, it.Items[0])
			} else {
				pos = append(pos, it)
			}
		}
		pos = compoundFirst(pos)
		if len(neg) == 0 {
			writeJoined(b, pos, " AND ")
			return
		}
		if len(pos) == 1 {
			fts5Item(b, pos[0])
		} else {
			b.WriteByte('(')
			writeJoined(b, pos, " AND ")
			b.WriteByte(')')
		}
		for _, n := range neg {
			b.WriteString(" NOT ")
			fts5Item(b, n)
		}
	}
}

// fts5Item writes an operand, in parentheses unless it is a term.
func fts5Item(b *strings.Builder, e *annals.TextExpr) {
	if e.Op == annals.TextTerm {
		fts5(b, e)
		return
	}
	b.WriteByte('(')
	fts5(b, e)
	b.WriteByte(')')
}

func writeJoined(b *strings.Builder, items []*annals.TextExpr, op string) {
	for i, it := range items {
		if i > 0 {
			b.WriteString(op)
		}
		fts5Item(b, it)
	}
}

// compoundFirst returns items with every non-term before every term, each group in its order.
func compoundFirst(items []*annals.TextExpr) []*annals.TextExpr {
	out := make([]*annals.TextExpr, 0, len(items))
	for _, it := range items {
		if it.Op != annals.TextTerm {
			out = append(out, it)
		}
	}
	for _, it := range items {
		if it.Op == annals.TextTerm {
			out = append(out, it)
		}
	}
	return out
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_', 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z':
		case '0' <= r && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// CompileTSQuery compiles a text expression to a PostgreSQL tsquery string, for
// to_tsquery('simple', $1) with the string bound as a parameter. Every token is folded with Fold
// and written as a quoted lexeme ('tok', with ' and \ escaped), a term's tokens are joined by
// the phrase operator <->, a prefix term's last token gets :*, and &, |, ! and parentheses come
// from the tree only. The same trees as for CompileFTS5 are refused, so both backends accept
// exactly the same queries.
//
// to_tsquery runs each quoted lexeme through the text search parser again; since a token holds
// only letters and digits, that parser leaves it whole, provided the indexed text was split by
// Tokenize and folded by Fold too (to_tsvector('simple', the tokens joined by spaces)).
func CompileTSQuery(e *annals.TextExpr) (string, error) {
	if err := check(e); err != nil {
		return "", err
	}
	var b strings.Builder
	tsquery(&b, e)
	return b.String(), nil
}

func tsquery(b *strings.Builder, e *annals.TextExpr) {
	switch e.Op {
	case annals.TextTerm:
		for i, t := range e.Tokens {
			if i > 0 {
				b.WriteString(" <-> ")
			}
			b.WriteByte('\'')
			// As for FTS5: tokens hold no quotes or backslashes, but the escaping stands alone.
			b.WriteString(strings.ReplaceAll(strings.ReplaceAll(Fold(t), `\`, `\\`), `'`, `''`))
			b.WriteByte('\'')
		}
		if e.Prefix {
			b.WriteString(":*")
		}
	case annals.TextOr:
		for i, it := range e.Items {
			if i > 0 {
				b.WriteString(" | ")
			}
			tsItem(b, it)
		}
	case annals.TextAnd:
		for i, it := range e.Items {
			if i > 0 {
				b.WriteString(" & ")
			}
			if it.Op == annals.TextNot {
				b.WriteByte('!')
				tsItem(b, it.Items[0])
				continue
			}
			tsItem(b, it)
		}
	}
}

// tsItem writes an operand, in parentheses unless it is a single-token term.
func tsItem(b *strings.Builder, e *annals.TextExpr) {
	if e.Op == annals.TextTerm && len(e.Tokens) == 1 {
		tsquery(b, e)
		return
	}
	b.WriteByte('(')
	tsquery(b, e)
	b.WriteByte(')')
}

// ToTextExpr converts a text expression to the backend-neutral tree that annals.SearchFilter
// carries to a store; nil stays nil.
func ToTextExpr(e Expr) *annals.TextExpr {
	switch e := e.(type) {
	case *Term:
		return &annals.TextExpr{Op: annals.TextTerm, Tokens: append([]string(nil), e.Tokens...), Prefix: e.Prefix}
	case *And:
		return &annals.TextExpr{Op: annals.TextAnd, Items: toTextExprs(e.Items)}
	case *Or:
		return &annals.TextExpr{Op: annals.TextOr, Items: toTextExprs(e.Items)}
	case *Not:
		return &annals.TextExpr{Op: annals.TextNot, Items: []*annals.TextExpr{ToTextExpr(e.Item)}}
	}
	return nil
}

func toTextExprs(items []Expr) []*annals.TextExpr {
	out := make([]*annals.TextExpr, len(items))
	for i, it := range items {
		out[i] = ToTextExpr(it)
	}
	return out
}

// PositiveTerms appends to out the terms of e that are not under a negation, in order: they
// drive ranking and snippets in both stores.
func PositiveTerms(e *annals.TextExpr, out []*annals.TextExpr) []*annals.TextExpr {
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
		out = PositiveTerms(it, out)
	}
	return out
}
