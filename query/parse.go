package query

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/annals-dev/annals"
)

// Parse parses a query typed by a person. Words are ANDed; OR binds tighter than that (a b OR c
// means a AND (b OR c)); AND may be written but changes nothing; -x excludes; parentheses group;
// "..." is a phrase; a trailing * makes a prefix; role:, tool:, agent:, tag:, attr.KEY:, after:,
// before: and in: are filters, which apply to the whole query.
//
// Parse is forgiving about what people paste (punctuation, an unclosed quote or parenthesis, a
// stray ')') and strict about what would make a search meaningless or unbounded. Its errors are
// *annals.Error with code invalid and say what is wrong and what is allowed. A query that
// parses always compiles with CompileFTS5 and CompileTSQuery.
func Parse(s string) (*Query, error) {
	if len(s) > MaxQueryBytes {
		return nil, annals.Errorf(annals.EINVALID, "the query is %d bytes long (at most %d allowed)", len(s), MaxQueryBytes)
	}
	if !utf8.ValidString(s) {
		return nil, annals.Errorf(annals.EINVALID, "the query is not valid UTF-8")
	}
	items, err := lex(s)
	if err != nil {
		return nil, err
	}
	p := &parser{items: items}
	text := normalize(&And{Items: p.parseSeq()})
	if p.terms > MaxTerms {
		return nil, annals.Errorf(annals.EINVALID, "the query has %d words, phrases and filters (at most %d allowed); to search for a pasted message, put it in quotes so it counts as one phrase", p.terms, MaxTerms)
	}
	if p.tokens > MaxTokens {
		return nil, annals.Errorf(annals.EINVALID, "the query has %d words in all, counting each word of a phrase (at most %d allowed); search for a shorter part of the text", p.tokens, MaxTokens)
	}
	q := &Query{}
	text, err = q.takeFilters(text)
	if err != nil {
		return nil, err
	}
	q.Text = text
	if q.Text == nil && q.Filters.IsZero() && len(q.Fields) == 0 {
		return nil, annals.Errorf(annals.EINVALID, "the query has no searchable words: type a word, a \"phrase\" or a filter such as tag:x (punctuation alone is not searchable)")
	}
	if q.Text == nil && len(q.Fields) > 0 {
		return nil, annals.Errorf(annals.EINVALID, "in: narrows where words match, but the query has no words to search for")
	}
	if q.Text != nil {
		if err := check(ToTextExpr(q.Text)); err != nil {
			return nil, err
		}
	}
	return q, nil
}

// filterExpr holds a filter in the tree until takeFilters lifts it out. It never leaves Parse.
type filterExpr struct{ it item }

func (f *filterExpr) String() string { return f.it.raw }
func (*filterExpr) expr()            {}

// parser is a recursive-descent parser over the items:
//
//	seq   := { AND | or }            (AND is implicit; a dangling OR is dropped)
//	or    := unary { OR unary }
//	unary := word | phrase | filter | "(" seq [")"]   (each optionally negated by a leading -)
type parser struct {
	items []item
	i     int
	// terms counts words and phrases with at least one token, and filters, for MaxTerms;
	// tokens counts their tokens, for MaxTokens.
	terms, tokens int
}

func (p *parser) peek() (item, bool) {
	if p.i < len(p.items) {
		return p.items[p.i], true
	}
	return item{}, false
}

// parseSeq parses a sequence of operands up to a ')' (left for the caller) or the end. Keywords
// with nothing to join are dropped: "OR" in capitals is always an operator, and the lower-case
// word is how one searches for "or".
func (p *parser) parseSeq() []Expr {
	var out []Expr
	for {
		it, ok := p.peek()
		if !ok || it.kind == itemClose {
			return out
		}
		if it.kind == itemAnd || it.kind == itemOr {
			p.i++
			continue
		}
		out = append(out, p.parseOr())
	}
}

// parseOr parses alternatives joined by OR. It is called at an operand.
func (p *parser) parseOr() Expr {
	alts := []Expr{p.parseUnary()}
	for {
		it, ok := p.peek()
		if !ok || it.kind != itemOr {
			break
		}
		j := p.i
		for j < len(p.items) && p.items[j].kind == itemOr {
			j++ // "a OR OR b" is a OR b
		}
		if j == len(p.items) || !isOperand(p.items[j].kind) {
			p.i = j // an OR with nothing on its right is dropped
			break
		}
		p.i = j
		alts = append(alts, p.parseUnary())
	}
	if len(alts) == 1 {
		return alts[0]
	}
	return &Or{Items: alts}
}

func isOperand(k itemKind) bool {
	return k == itemWord || k == itemPhrase || k == itemFilter || k == itemOpen
}

// parseUnary parses one operand. It is called at an operand.
func (p *parser) parseUnary() Expr {
	it := p.items[p.i]
	p.i++
	var e Expr
	switch it.kind {
	case itemOpen:
		inner := p.parseSeq()
		if next, ok := p.peek(); ok && next.kind == itemClose {
			p.i++
		} // else the group runs to the end of the query: an unclosed '(' is closed there
		e = &And{Items: inner}
	case itemFilter:
		p.terms++
		e = &filterExpr{it: it}
	default: // itemWord, itemPhrase
		t := &Term{Tokens: Tokenize(it.text), Prefix: it.prefix, Phrase: it.kind == itemPhrase, Raw: it.text}
		if len(t.Tokens) > 0 {
			p.terms++
			p.tokens += len(t.Tokens)
		}
		e = t
	}
	if it.neg {
		e = &Not{Item: e}
	}
	return e
}

// normalize simplifies a tree: terms without tokens ("c++" keeps c, but "++" keeps nothing) and
// empty groups disappear, a group of one item is that item, nested ANDs and nested ORs flatten,
// and a double exclusion cancels. It returns nil when nothing is left.
func normalize(e Expr) Expr {
	switch e := e.(type) {
	case *Term:
		if len(e.Tokens) == 0 {
			return nil
		}
		return e
	case *filterExpr:
		return e
	case *Not:
		in := normalize(e.Item)
		if in == nil {
			return nil
		}
		if n, ok := in.(*Not); ok {
			return n.Item
		}
		return &Not{Item: in}
	case *And:
		items := make([]Expr, 0, len(e.Items))
		for _, it := range e.Items {
			switch n := normalize(it).(type) {
			case nil:
			case *And:
				items = append(items, n.Items...)
			default:
				items = append(items, n)
			}
		}
		return collapse(items, func(items []Expr) Expr { return &And{Items: items} })
	case *Or:
		items := make([]Expr, 0, len(e.Items))
		for _, it := range e.Items {
			switch n := normalize(it).(type) {
			case nil:
			case *Or:
				items = append(items, n.Items...)
			default:
				items = append(items, n)
			}
		}
		return collapse(items, func(items []Expr) Expr { return &Or{Items: items} })
	}
	return nil
}

func collapse(items []Expr, build func([]Expr) Expr) Expr {
	switch len(items) {
	case 0:
		return nil
	case 1:
		return items[0]
	}
	return build(items)
}

// takeFilters lifts the filters out of the tree into q. A filter applies to the whole query, so
// one may stand anywhere that ANDs with the rest, but not under OR or an exclusion, where it
// would have to mean something else. The tree is normalized again after the filters are gone.
func (q *Query) takeFilters(e Expr) (Expr, error) {
	var walk func(e Expr, under string) (Expr, error)
	walk = func(e Expr, under string) (Expr, error) {
		switch e := e.(type) {
		case *filterExpr:
			if under != "" {
				return nil, annals.Errorf(annals.EINVALID, "the filter %s cannot be %s: filters apply to the whole query (to search for the text, put it in quotes: \"%s\")", e.it.raw, under, strings.TrimPrefix(e.it.raw, "-"))
			}
			if e.it.neg {
				return nil, annals.Errorf(annals.EINVALID, "the filter %s cannot be negated: filters apply to the whole query (to exclude the text, put it in quotes: -\"%s\")", e.it.raw, strings.TrimPrefix(e.it.raw, "-"))
			}
			return nil, q.applyFilter(e.it)
		case *Not:
			if f, ok := e.Item.(*filterExpr); ok {
				f.it.neg = true
				return walk(f, under)
			}
			in, err := walk(e.Item, "inside an exclusion -(...)")
			return &Not{Item: in}, err
		case *And:
			items := make([]Expr, len(e.Items))
			for i, it := range e.Items {
				var err error
				if items[i], err = walk(it, under); err != nil {
					return nil, err
				}
			}
			return &And{Items: items}, nil
		case *Or:
			items := make([]Expr, len(e.Items))
			for i, it := range e.Items {
				var err error
				if items[i], err = walk(it, "an alternative of OR"); err != nil {
					return nil, err
				}
			}
			return &Or{Items: items}, nil
		}
		return e, nil
	}
	e, err := walk(e, "")
	if err != nil {
		return nil, err
	}
	if q.Filters.After != nil && q.Filters.Before != nil && !q.Filters.After.Before(*q.Filters.Before) {
		return nil, annals.Errorf(annals.EINVALID, "after:%s is not earlier than before:%s, so nothing could match", q.Filters.After.Format(time.RFC3339), q.Filters.Before.Format(time.RFC3339))
	}
	return normalize(e), nil
}

// applyFilter records one filter in q.
func (q *Query) applyFilter(it item) error {
	f := &q.Filters
	v := it.value
	if v == "" {
		return annals.Errorf(annals.EINVALID, "the filter %s: needs a value, as in %s", it.name, filterExample(it.name))
	}
	switch it.name {
	case "role":
		kind, err := annals.ParseEntryKind(strings.ToLower(v))
		if err != nil {
			return annals.Errorf(annals.EINVALID, "unknown role %q in %s (want one of: %s)", v, it.raw, joinKinds())
		}
		f.Roles = appendUnique(f.Roles, kind)
	case "tool":
		f.Tools = appendUnique(f.Tools, v)
	case "agent":
		f.Agents = appendUnique(f.Agents, v)
	case "tag":
		f.Tags = appendUnique(f.Tags, v)
	case "after", "before":
		// A date is its first instant for both: before: is strict, so before:2026-02-01 ends
		// with January.
		t, err := annals.ParseDateOrTime(v, false)
		if err != nil {
			return annals.Errorf(annals.EINVALID, "%s:%s is not a date (want a date such as 2026-01-31 or a time such as 2026-01-31T15:04:05Z); to search for the text, put it in quotes: \"%s\"", it.name, v, it.raw)
		}
		if err := annals.ValidateBound(it.name+":", t); err != nil {
			return err
		}
		dst := &f.After
		if it.name == "before" {
			dst = &f.Before
		}
		if *dst != nil && !(*dst).Equal(t) {
			return annals.Errorf(annals.EINVALID, "%s: is given twice with different values; give it once", it.name)
		}
		*dst = &t
	case "in":
		for _, name := range strings.Split(v, ",") {
			name = strings.ToLower(strings.TrimSpace(name))
			if name == "" {
				continue
			}
			if !validField(name) {
				return annals.Errorf(annals.EINVALID, "unknown field %q in %s (want one of: %s)", name, it.raw, strings.Join(annals.SearchFields, ", "))
			}
			q.Fields = appendUnique(q.Fields, name)
		}
		if len(q.Fields) == 0 {
			return annals.Errorf(annals.EINVALID, "the filter in: needs a field, as in %s", filterExample("in"))
		}
		q.Fields = canonicalFields(q.Fields)
	default: // attr.KEY
		key := it.name[len(attrPrefix):]
		switch {
		case key == "":
			return annals.Errorf(annals.EINVALID, "the filter %s needs an attribute name, as in %s", it.raw, filterExample("attr."))
		case len(key) > annals.MaxAttrKeyBytes:
			return annals.Errorf(annals.EINVALID, "the attribute name in %.60s... is %d bytes long (at most %d allowed)", it.raw, len(key), annals.MaxAttrKeyBytes)
		}
		if f.Attrs == nil {
			f.Attrs = map[string]string{}
		}
		if old, ok := f.Attrs[key]; ok && old != v {
			return annals.Errorf(annals.EINVALID, "attr.%s: is given twice with different values (%q and %q); a chat has one value per attribute", key, old, v)
		}
		f.Attrs[key] = v
	}
	return nil
}

func filterExample(name string) string {
	switch name {
	case "role":
		return "role:user"
	case "tool":
		return "tool:Bash"
	case "agent":
		return "agent:reviewer"
	case "tag":
		return `tag:"release notes"`
	case "after":
		return "after:2026-01-31"
	case "before":
		return "before:2026-01-31T15:04:05Z"
	case "in":
		return "in:title,body"
	}
	return "attr.repository:github.com/o/r"
}

func joinKinds() string {
	parts := make([]string, len(annals.EntryKinds))
	for i, k := range annals.EntryKinds {
		parts[i] = string(k)
	}
	return strings.Join(parts, ", ")
}

func validField(name string) bool {
	for _, f := range annals.SearchFields {
		if f == name {
			return true
		}
	}
	return false
}

// canonicalFields orders fields as annals.SearchFields does, so that equal narrowings compare
// equal whatever order they were typed in.
func canonicalFields(fields []string) []string {
	out := make([]string, 0, len(fields))
	for _, f := range annals.SearchFields {
		for _, g := range fields {
			if f == g {
				out = append(out, f)
				break
			}
		}
	}
	return out
}

func appendUnique[T comparable](list []T, v T) []T {
	for _, x := range list {
		if x == v {
			return list
		}
	}
	return append(list, v)
}

func errOnlyExclusions() error {
	return annals.Errorf(annals.EINVALID, "the query needs at least one word to search for besides exclusions (-word); add a word, or use filters alone")
}
