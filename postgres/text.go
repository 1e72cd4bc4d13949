package postgres

import (
	"context"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/query"
)

// Full text on PostgreSQL. Indexed text is split with query.Tokenize (the same token rules as
// SQLite's unicode61 tokenizer) and folded with query.Fold (lower case, accents removed, as
// unicode61's remove_diacritics 2), then written as a tsvector value directly: no text search
// parser, configuration or dictionary touches it, so "emag.ro" is the lexemes emag, ro at
// adjacent positions, "Café" is cafe, and the result does not depend on the server's locale or
// extensions. Queries are tsquery values assembled from the same folded tokens, every lexeme
// quoted, and bound as parameters (?::tsquery): nothing a person typed is read as tsquery syntax.
//
// Weights record the field a token came from, so one GIN index serves field-restricted queries
// (a lexeme written 'x':AB matches only positions of weight A or B):
//
//	entries.tsv:    A text, B reasoning, C tool name and arguments, D tool result
//	chat_meta.meta_tsv: A title, B description, C summary, D tags

// PostgreSQL's tsvector limits: a lexeme holds at most 2047 bytes, a lexeme keeps at most 256
// positions, positions run 1..16383, and the whole value stays under 1 MiB.
const (
	maxLexemeBytes  = 2000
	maxPositions    = 256
	maxPosition     = 16383
	maxVectorBudget = 900 << 10
)

// Field weight letters.
const (
	wText, wReasoning, wTool, wResult     = 'A', 'B', 'C', 'D'
	wTitle, wDescription, wSummary, wTags = 'A', 'B', 'C', 'D'
)

// lexeme folds a token the way both sides of a match see it, and cuts it (at a character
// boundary) to the longest lexeme PostgreSQL accepts. A cut token still matches its own cut form,
// so a very long token is found by itself (and by any token sharing its first 2000 bytes).
func lexeme(tok string) string {
	s := query.Fold(tok)
	if len(s) <= maxLexemeBytes {
		return s
	}
	cut := maxLexemeBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// tsField is one field of a document and the weight its tokens carry.
type tsField struct {
	text   string
	weight pgtype.TSVectorWeight
}

// buildTSVector builds the tsvector of a document made of fields, in order. Positions count
// tokens from 1; one position is skipped between fields so a phrase never spans two of them (as
// FTS5 columns never do). Positions past 16383 are clamped by PostgreSQL's rules, and lexemes
// beyond the size budget are left out: a document that large is still found by its first
// ~900 KiB of distinct words.
func buildTSVector(fields ...tsField) pgtype.TSVector {
	type lex struct {
		pos []pgtype.TSVectorPosition
	}
	words := map[string]*lex{}
	budget := 0
	pos := 0
	for _, f := range fields {
		if f.text == "" {
			continue
		}
		if pos > 0 {
			pos++ // the gap between fields
		}
		// Placeholder words keep their positions but are not lexemes: no search finds them.
		for _, tok := range query.Tokenize(query.IndexText(f.text)) {
			pos++
			if query.IsPlaceholderToken(tok) {
				continue
			}
			p := min(pos, maxPosition)
			w := lexeme(tok)
			l, ok := words[w]
			if !ok {
				cost := len(w) + 8
				if budget+cost > maxVectorBudget {
					continue
				}
				budget += cost
				l = &lex{}
				words[w] = l
			}
			if len(l.pos) >= maxPositions || budget+2 > maxVectorBudget {
				continue
			}
			if n := len(l.pos); n > 0 && int(l.pos[n-1].Position) >= p {
				continue // a clamped position already recorded
			}
			l.pos = append(l.pos, pgtype.TSVectorPosition{Position: uint16(p), Weight: f.weight})
			budget += 2
		}
	}
	out := pgtype.TSVector{Valid: true, Lexemes: make([]pgtype.TSVectorLexeme, 0, len(words))}
	for w, l := range words {
		out.Lexemes = append(out.Lexemes, pgtype.TSVectorLexeme{Word: w, Positions: l.pos})
	}
	// PostgreSQL keeps lexemes sorted (byte order, shorter first on a common prefix: exactly
	// Go's string order); sorting here spares it the work and makes the value deterministic.
	slices.SortFunc(out.Lexemes, func(a, b pgtype.TSVectorLexeme) int { return strings.Compare(a.Word, b.Word) })
	return out
}

// entryTSV is an entry's tsvector.
func entryTSV(e *annals.Entry) pgtype.TSVector {
	var name, args, result string
	if e.Tool != nil {
		name, args, result = e.Tool.Name, string(e.Tool.Arguments), e.Tool.Result
	}
	return buildTSVector(
		tsField{e.Text, wText},
		tsField{e.Reasoning, wReasoning},
		tsField{name, wTool},
		tsField{args, wTool},
		tsField{result, wResult},
	)
}

// metaTSV is a chat's metadata tsvector. Tags are joined by newlines, as SQLite indexes them.
func metaTSV(title, description, summary string, tags []string) pgtype.TSVector {
	return buildTSVector(
		tsField{title, wTitle},
		tsField{description, wDescription},
		tsField{summary, wSummary},
		tsField{strings.Join(tags, "\n"), wTags},
	)
}

// tsLexeme writes one quoted tsquery lexeme: ' doubled and \ escaped, so the value is always
// read as one lexeme whatever it holds.
func tsLexeme(b *strings.Builder, lex string) {
	b.WriteByte('\'')
	for i := 0; i < len(lex); i++ {
		switch lex[i] {
		case '\'':
			b.WriteString("''")
		case '\\':
			b.WriteString(`\\`)
		default:
			b.WriteByte(lex[i])
		}
	}
	b.WriteByte('\'')
}

// tsPhrase compiles a token sequence: lexemes joined by the phrase operator <->, each restricted
// to weights (empty: any), the last one a prefix when prefix is set. It returns "" for no tokens.
func tsPhrase(tokens []string, prefix bool, weights string) string {
	if len(tokens) == 0 {
		return ""
	}
	var b strings.Builder
	if len(tokens) > 1 {
		b.WriteByte('(')
	}
	for i, t := range tokens {
		if i > 0 {
			b.WriteString(" <-> ")
		}
		tsLexeme(&b, lexeme(t))
		p := prefix && i == len(tokens)-1
		if p || weights != "" {
			b.WriteByte(':')
			if p {
				b.WriteByte('*')
			}
			b.WriteString(weights)
		}
	}
	if len(tokens) > 1 {
		b.WriteByte(')')
	}
	return b.String()
}

// tsTerm compiles a parsed term.
func tsTerm(t *annals.TextExpr, weights string) (string, error) {
	if len(t.Tokens) == 0 {
		return "", annals.Errorf(annals.EINVALID, "the query has an empty term")
	}
	return tsPhrase(t.Tokens, t.Prefix, weights), nil
}

// tsExpr compiles a boolean tree for matching within one entry. The trees refused are the ones
// the SQLite store refuses (an exclusion alone, or as a side of OR), so both backends accept the
// same queries.
func tsExpr(e *annals.TextExpr, weights string) (string, error) {
	switch e.Op {
	case annals.TextTerm:
		return tsTerm(e, weights)
	case annals.TextOr:
		parts := make([]string, 0, len(e.Items))
		for _, it := range e.Items {
			if it.Op == annals.TextNot {
				return "", annals.Errorf(annals.EINVALID, "an exclusion (-word) cannot be one side of OR; combine it with words instead")
			}
			s, err := tsExpr(it, weights)
			if err != nil {
				return "", err
			}
			parts = append(parts, "("+s+")")
		}
		return strings.Join(parts, " | "), nil
	case annals.TextAnd:
		var parts []string
		positive := 0
		for _, it := range e.Items {
			neg := it.Op == annals.TextNot
			if neg {
				if len(it.Items) != 1 {
					return "", annals.Errorf(annals.EINVALID, "unknown query node")
				}
				it = it.Items[0]
			}
			s, err := tsExpr(it, weights)
			if err != nil {
				return "", err
			}
			if neg {
				parts = append(parts, "!("+s+")")
			} else {
				positive++
				parts = append(parts, "("+s+")")
			}
		}
		if positive == 0 {
			return "", errOnlyExclusions()
		}
		return strings.Join(parts, " & "), nil
	case annals.TextNot:
		return "", errOnlyExclusions()
	}
	return "", annals.Errorf(annals.EINVALID, "unknown query node")
}

func errOnlyExclusions() error {
	return annals.Errorf(annals.EINVALID, "the query needs at least one word to search for besides exclusions")
}

// tsAny compiles "any of these terms", for ranking.
func tsAny(terms []*annals.TextExpr, weights string) string {
	parts := make([]string, 0, len(terms))
	for _, t := range terms {
		if s := tsPhrase(t.Tokens, t.Prefix, weights); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, " | ")
}

// tsAndLiteral compiles literal terms (TextMatch, the view's words, MetaTerms): each term is
// tokenized like indexed text and matched as a phrase; all must match. ok is false when a term
// has no word characters at all: such a term can match nothing, so neither can the AND.
func tsAndLiteral(terms []string, weights string) (q string, ok bool, err error) {
	if len(terms) == 0 {
		return "", false, annals.Errorf(annals.EINVALID, "a text match needs at least one term")
	}
	parts := make([]string, len(terms))
	for i, t := range terms {
		parts[i] = tsPhrase(query.Tokenize(t), false, weights)
		if parts[i] == "" {
			return "", false, nil
		}
	}
	return strings.Join(parts, " & "), true, nil
}

// MatchEntries finds entries containing every term; see annals.TextIndex.
func (db *DB) MatchEntries(ctx context.Context, m annals.TextMatch) ([]annals.EntryRef, error) {
	q, ok, err := tsAndLiteral(m.Terms, "")
	if err != nil {
		return nil, err
	}
	out := []annals.EntryRef{}
	if !ok {
		return out, nil
	}
	w := &where{}
	w.Add("e.tsv @@ ?::tsquery", q)
	w.addTenant("e", m.Owner)
	w.AddOwner("c", m.Owner)
	sql := `SELECT c.id, e.seq FROM entries e JOIN chats c ON c.pk = e.chat_pk WHERE ` + w.SQL() + ` ORDER BY c.id, e.seq`
	if m.Limit > 0 {
		sql += ` LIMIT ?`
		w.Args = append(w.Args, m.Limit)
	}
	rows, err := db.pool.Query(ctx, rebind(sql), w.Args...)
	if err != nil {
		return nil, db.storeErr("match entries", err)
	}
	defer rows.Close()
	for rows.Next() {
		var r annals.EntryRef
		if err := rows.Scan(&r.ChatID, &r.Seq); err != nil {
			return nil, db.storeErr("scan match", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, db.storeErr("match entries", err)
	}
	return out, nil
}

// MatchChats finds chats whose metadata contains every term; see annals.TextIndex.
func (db *DB) MatchChats(ctx context.Context, m annals.TextMatch) ([]string, error) {
	q, ok, err := tsAndLiteral(m.Terms, "")
	if err != nil {
		return nil, err
	}
	out := []string{}
	if !ok {
		return out, nil
	}
	w := &where{}
	w.Add("c.pk IN (SELECT m.chat_pk FROM chat_meta m WHERE m.meta_tsv @@ ?::tsquery)", q)
	w.AddOwner("c", m.Owner)
	sql := `SELECT c.id FROM chats c WHERE ` + w.SQL() + ` ORDER BY c.id`
	if m.Limit > 0 {
		sql += ` LIMIT ?`
		w.Args = append(w.Args, m.Limit)
	}
	rows, err := db.pool.Query(ctx, rebind(sql), w.Args...)
	if err != nil {
		return nil, db.storeErr("match chats", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, db.storeErr("scan match", err)
		}
		out = append(out, id)
	}
	if err := rows.Err(); err != nil {
		return nil, db.storeErr("match chats", err)
	}
	return out, nil
}
