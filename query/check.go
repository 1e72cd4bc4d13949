package query

import "github.com/annals-dev/annals"

// check verifies that a text expression can be run by every backend. FTS5's NOT is binary
// (x NOT y), and no engine can list "everything not matching y" from a full-text index alone, so
// an exclusion must stand in an AND beside at least one positive item, never alone and never as
// an alternative of OR. Parse checks the tree it built and CompileFTS5 and CompileTSQuery check
// what they are given with this one function, so a tree built by hand gets the same answer as a
// parsed one.
func check(e *annals.TextExpr) error {
	return checkDepth(e, 0)
}

// maxTreeDepth bounds the depth of a tree, counting every node. A parsed query's tree grows by
// at most two levels per parenthesis (the group, and an OR or exclusion inside it), plus its top
// node and a term; a deeper tree can only be built by hand, and might overflow the FTS5 parser's
// fixed-size stack.
const maxTreeDepth = 2*MaxDepth + 2

func checkDepth(e *annals.TextExpr, depth int) error {
	if depth > maxTreeDepth {
		return annals.Errorf(annals.EINVALID, "the query is nested too deeply (at most %d levels of parentheses)", MaxDepth)
	}
	if e == nil {
		return annals.Errorf(annals.EINVALID, "the query has no words to search for")
	}
	switch e.Op {
	case annals.TextTerm:
		if len(e.Tokens) == 0 {
			return annals.Errorf(annals.EINVALID, "the query has a term without searchable characters")
		}
		for _, t := range e.Tokens {
			if t == "" {
				return annals.Errorf(annals.EINVALID, "the query has an empty word")
			}
		}
		return nil
	case annals.TextAnd:
		positive := 0
		for _, it := range e.Items {
			target, level := it, depth+1
			if it != nil && it.Op == annals.TextNot {
				var err error
				if target, err = excluded(it); err != nil {
					return err
				}
				level = depth + 2
				if target != nil && target.Op == annals.TextNot {
					return errOnlyExclusions()
				}
			} else {
				positive++
			}
			if err := checkDepth(target, level); err != nil {
				return err
			}
		}
		if positive == 0 {
			return errOnlyExclusions()
		}
		return nil
	case annals.TextOr:
		if len(e.Items) == 0 {
			return annals.Errorf(annals.EINVALID, "the query has an empty OR")
		}
		for _, it := range e.Items {
			if it != nil && it.Op == annals.TextNot {
				if _, err := excluded(it); err != nil {
					return err
				}
				return annals.Errorf(annals.EINVALID, "an exclusion cannot be an alternative of OR (… OR %s): exclusions only narrow what the other words find; write the exclusion outside the OR, as in (a OR b) -c", fromTextExpr(it).String())
			}
			if err := checkDepth(it, depth+1); err != nil {
				return err
			}
		}
		return nil
	case annals.TextNot:
		return errOnlyExclusions()
	}
	return annals.Errorf(annals.EINVALID, "the query has an unsupported node (op %d; want a term, AND, OR or NOT)", e.Op)
}

// excluded is the operand of an exclusion, which has exactly one.
func excluded(n *annals.TextExpr) (*annals.TextExpr, error) {
	if len(n.Items) != 1 {
		return nil, annals.Errorf(annals.EINVALID, "the query has an exclusion with %d operands; want exactly one", len(n.Items))
	}
	return n.Items[0], nil
}

// fromTextExpr rebuilds the parser's tree of a checked node, only to name it in a message in
// the query language (the parser's String).
func fromTextExpr(e *annals.TextExpr) Expr {
	if e == nil {
		return nil
	}
	switch e.Op {
	case annals.TextTerm:
		return &Term{Tokens: e.Tokens, Prefix: e.Prefix}
	case annals.TextAnd, annals.TextOr:
		items := make([]Expr, len(e.Items))
		for i, it := range e.Items {
			items[i] = fromTextExpr(it)
		}
		if e.Op == annals.TextAnd {
			return &And{Items: items}
		}
		return &Or{Items: items}
	case annals.TextNot:
		if len(e.Items) == 1 {
			return &Not{Item: fromTextExpr(e.Items[0])}
		}
	}
	return nil
}
