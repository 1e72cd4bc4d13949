package queryview

import (
	"strconv"
	"strings"
)

// Reading the lanius importer's keys out of an entry's metadata is most of a conversation's CPU
// and a sixth of a transcript page's when encoding/json does it (reflection, a map per message,
// one validation pass more; issue 32). The metadata reaching the view is valid JSON (the store
// hands over whole, valid metadata only), and the importer writes it in one plain shape, so the
// keys are read here by walking that shape once, without decoding what is not asked for. Anything
// the walk does not expect (a key spelled with escapes or in another case, a key given twice, a
// number that is no integer, a value of another type) makes it give up, and the caller decodes
// with encoding/json as before, whose answer is the definition (TestMetaScanMatchesUnmarshal).

// members calls f with each member of the JSON object doc whose key is one of want: the key and
// the raw text of its value. Other members are skipped unread. It returns false, having called f
// for some members or none, when doc is no object, a key holds an escape, a key of want is given
// twice (encoding/json merges or overwrites them, which the walk does not copy), f returns false,
// or, with fold (a struct's fields, which encoding/json matches in any case), a key is one of want
// in another case.
func members(doc []byte, want []string, fold bool, f func(key string, val []byte) bool) bool {
	i := skipSpace(doc, 0)
	if i >= len(doc) || doc[i] != '{' {
		return false
	}
	var seen uint64
	i = skipSpace(doc, i+1)
	if i < len(doc) && doc[i] == '}' {
		return true
	}
	for i < len(doc) && doc[i] == '"' {
		end := skipString(doc, i)
		if end < 0 {
			return false
		}
		key := doc[i+1 : end-1]
		if strings.IndexByte(string(key), '\\') >= 0 {
			return false
		}
		i = skipSpace(doc, end)
		if i >= len(doc) || doc[i] != ':' {
			return false
		}
		start := skipSpace(doc, i+1)
		stop := skipValue(doc, start)
		if stop < 0 {
			return false
		}
		for k, w := range want {
			if string(key) == w {
				if seen&(1<<k) != 0 || !f(w, doc[start:stop]) {
					return false
				}
				seen |= 1 << k
			} else if fold && strings.EqualFold(string(key), w) {
				return false
			}
		}
		i = skipSpace(doc, stop)
		if i < len(doc) && doc[i] == '}' {
			return true
		}
		if i >= len(doc) || doc[i] != ',' {
			return false
		}
		i = skipSpace(doc, i+1)
	}
	return false
}

func skipSpace(doc []byte, i int) int {
	for i < len(doc) && (doc[i] == ' ' || doc[i] == '\t' || doc[i] == '\n' || doc[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at doc[i] == '"', or -1.
func skipString(doc []byte, i int) int {
	for j := i + 1; j < len(doc); j++ {
		switch doc[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// skipValue returns the index after the value starting at doc[i], or -1. doc is valid JSON, so
// brackets balance outside strings and a scalar ends at a delimiter.
func skipValue(doc []byte, i int) int {
	if i >= len(doc) {
		return -1
	}
	switch doc[i] {
	case '"':
		return skipString(doc, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(doc); j++ {
			switch doc[j] {
			case '"':
				if j = skipString(doc, j); j < 0 {
					return -1
				}
				j--
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(doc) && !strings.ContainsRune(",}] \t\r\n", rune(doc[j])) {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

// intOrNull reads an integer value into *dst (nil for null), as encoding/json reads it into an
// *int64; false for anything else.
func intOrNull(val []byte, dst **int64) bool {
	if string(val) == "null" {
		*dst = nil
		return true
	}
	n, err := strconv.ParseInt(string(val), 10, 64)
	if err != nil {
		return false
	}
	*dst = &n
	return true
}

// isNull tells a JSON null.
func isNull(val []byte) bool { return string(val) == "null" }

// laniusEventMeta is what the importer keeps of an event under laniusEventKey.
type laniusEventMeta struct {
	ID          *int64
	CauseID     []byte
	State       []byte
	PayloadNull bool
}

// scanLaniusEvent reads the laniusEventKey member of meta; ev is nil when there is none (or it is
// null). ok is false when the walk gave up: decode meta with encoding/json instead.
func scanLaniusEvent(meta []byte) (ev *laniusEventMeta, ok bool) {
	ok = members(meta, []string{laniusEventKey}, true, func(_ string, val []byte) bool {
		if isNull(val) {
			return true
		}
		ev = &laniusEventMeta{}
		return members(val, []string{"id", "cause_id", "state", "payload_null"}, true, func(key string, v []byte) bool {
			switch key {
			case "id":
				return intOrNull(v, &ev.ID)
			case "cause_id":
				ev.CauseID = v
			case "state":
				ev.State = v
			default:
				switch string(v) {
				case "true":
					ev.PayloadNull = true
				case "false", "null":
					ev.PayloadNull = false
				default:
					return false
				}
			}
			return true
		})
	})
	return ev, ok
}

// laniusMessageMeta is what the importer keeps of a messages row (laniusOverlay).
type laniusMessageMeta struct {
	Lanius, LaniusResult *laniusOrigin
	// Content holds the members of lanius_content that the overlay reads.
	Content struct{ Value, Chars, Preview []byte }
}

// scanLaniusMessage reads the lanius, lanius_result and lanius_content members of meta. ok is
// false when the walk gave up: decode meta with encoding/json instead.
func scanLaniusMessage(meta []byte) (m laniusMessageMeta, ok bool) {
	origin := func(val []byte, dst **laniusOrigin) bool {
		if isNull(val) {
			return true
		}
		o := &laniusOrigin{}
		*dst = o
		return members(val, []string{"id", "event_id"}, true, func(key string, v []byte) bool {
			if key == "id" {
				return intOrNull(v, &o.ID)
			}
			return intOrNull(v, &o.EventID)
		})
	}
	ok = members(meta, []string{"lanius", "lanius_result", "lanius_content"}, true, func(key string, val []byte) bool {
		switch key {
		case "lanius":
			return origin(val, &m.Lanius)
		case "lanius_result":
			return origin(val, &m.LaniusResult)
		}
		if isNull(val) {
			return true
		}
		// A map: its keys match exactly, never in another case, in encoding/json too.
		return members(val, []string{"value", "chars", "preview"}, false, func(k string, v []byte) bool {
			switch k {
			case "value":
				m.Content.Value = v
			case "chars":
				m.Content.Chars = v
			case "preview":
				m.Content.Preview = v
			}
			return true
		})
	})
	return m, ok
}
