package reader

import "encoding/json"

// UnknownFields is Unknown of raw decoded as a JSON object: the top-level fields of raw whose
// names are not in known, nil when there are none or raw is not an object.
//
// A parser asks this of every line it maps, and a line almost always holds only the fields it
// knows; decoding the line into a map copies every value (a message's content, a tool's whole
// output) only to find nothing to keep. So the object's top-level names are read first, without
// decoding or copying anything: when each is a known name as written (no escape), there is
// nothing to keep, whatever the values, and a map is built only otherwise. When raw is not valid
// JSON both ways answer nil: the full decode fails, and a name read as known keeps nothing.
func UnknownFields(raw []byte, known ...string) map[string]json.RawMessage {
	if onlyKnownNames(raw, known) {
		return nil
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return nil
	}
	return Unknown(obj, known...)
}

// onlyKnownNames reports whether raw is an object whose top-level names are all in known, each
// written without an escape. It reads the names only and validates nothing else; false means
// "not shown", and the caller decodes.
func onlyKnownNames(raw []byte, known []string) bool {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return false
	}
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return true
	}
	for {
		if i >= len(raw) || raw[i] != '"' {
			return false
		}
		start := i + 1
		end := start
		for end < len(raw) && raw[end] != '"' && raw[end] != '\\' {
			end++
		}
		if end >= len(raw) || raw[end] != '"' || !isKnownName(raw[start:end], known) {
			return false
		}
		i = skipSpace(raw, end+1)
		if i >= len(raw) || raw[i] != ':' {
			return false
		}
		if i = skipValue(raw, skipSpace(raw, i+1)); i < 0 {
			return false
		}
		i = skipSpace(raw, i)
		if i >= len(raw) {
			return false
		}
		switch raw[i] {
		case '}':
			return true
		case ',':
			i = skipSpace(raw, i+1)
		default:
			return false
		}
	}
}

func isKnownName(name []byte, known []string) bool {
	for _, k := range known {
		if string(name) == k {
			return true
		}
	}
	return false
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the index after the JSON value starting at b[i], or -1 when b ends first.
// Strings are skipped escape by escape and brackets counted outside strings; the value is not
// validated.
func skipValue(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		switch c := b[i]; c {
		case '"':
			if i = skipString(b, i); i < 0 {
				return -1
			}
			if depth == 0 {
				return i
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i // a scalar ended by its object's close
			}
			depth--
			if depth == 0 {
				return i + 1
			}
		case ',', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return i // a scalar's end
			}
		}
		i++
	}
	if depth == 0 {
		return i
	}
	return -1
}

// skipString returns the index after the JSON string starting at b[i] (a quote), or -1.
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}
