package reader

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
)

// Detection helpers. A format claims a file only on positive evidence: its own folder, or
// fields that only its tool writes, read from the top level of the first lines. Substring
// tests over the whole head are not evidence, since transcripts quote each other (a Claude
// Code session that edits a Codex rollout holds "payload" and "response_item" in its text), and
// several tools write look-alike lines (Qwen Code records carry Claude Code's uuid, parentUuid
// and sessionId; Kimi CLI's context lines are OpenAI messages plus its own bookkeeping lines).

// HeadLines returns up to n non-empty lines of head, trimmed. The last one may be cut short
// where the head ends; lineFields reads what it holds.
func HeadLines(head []byte, n int) [][]byte {
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	var out [][]byte
	for len(head) > 0 && len(out) < n {
		line := head
		if i := bytes.IndexByte(head, '\n'); i >= 0 {
			line, head = head[:i], head[i+1:]
		} else {
			head = nil
		}
		if line = bytes.TrimSpace(line); len(line) > 0 {
			out = append(out, line)
		}
	}
	return out
}

// LineFields decodes the top level of one JSON object, which may be cut short: every key seen
// is present, with its raw value when the value was complete and nil otherwise. ok is false
// when the text does not start as a JSON object.
func LineFields(line []byte) (fields map[string]json.RawMessage, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(line))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	fields = map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fields, true
		}
		key, isKey := tok.(string)
		if !isKey {
			return fields, true
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			fields[key] = nil
			return fields, true
		}
		fields[key] = raw
	}
	return fields, true
}

// HasFields reports whether every key is among fields.
func HasFields(fields map[string]json.RawMessage, keys ...string) bool {
	for _, k := range keys {
		if _, ok := fields[k]; !ok {
			return false
		}
	}
	return true
}

// FieldString returns the string value of key, or "" when it is absent, cut short or not a
// string.
func FieldString(fields map[string]json.RawMessage, key string) string {
	var s string
	if raw := fields[key]; raw != nil && json.Unmarshal(raw, &s) == nil {
		return s
	}
	return ""
}

// InFolder reports whether path lies under a folder named like one of the elements given
// (".claude/projects"), so a tool's own folder is evidence wherever the home directory is.
func InFolder(path string, folders ...string) bool {
	p := "/" + strings.TrimPrefix(filepath.ToSlash(path), "/")
	for _, f := range folders {
		if strings.Contains(p, "/"+f+"/") {
			return true
		}
	}
	return false
}

// HasExt reports whether path ends in one of the extensions, in any case.
func HasExt(path string, exts ...string) bool {
	e := strings.ToLower(filepath.Ext(path))
	for _, x := range exts {
		if e == x {
			return true
		}
	}
	return false
}

// GenAIContent reports whether raw (a record's message) is a Gemini API Content, {role,
// parts}: what Qwen Code records hold where Claude Code's hold {role, content}. A value cut
// short by the head counts when its beginning shows parts.
func GenAIContent(raw json.RawMessage, line []byte) bool {
	if raw == nil {
		i := bytes.Index(line, []byte(`"message"`))
		return i >= 0 && bytes.Contains(line[i:], []byte(`"parts"`)) && !bytes.Contains(line[i:], []byte(`"content"`))
	}
	m, ok := LineFields(raw)
	return ok && HasFields(m, "parts") && !HasFields(m, "content")
}

// PrefixFields reads the top-level fields of a JSON object that appear before the first value
// the head cuts short (a long system prompt, a big array): enough to see a document's header
// when LineFields cannot decode the whole. A field whose value is cut is present with a nil
// value.
func PrefixFields(head []byte) map[string]json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(head))
	f := map[string]json.RawMessage{}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return f
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return f
		}
		key, _ := k.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			f[key] = nil
			return f
		}
		f[key] = v
	}
	return f
}
