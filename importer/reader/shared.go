package reader

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/annals-dev/annals"
)

// Small helpers two or more readers share: JSON values, ids, token counts, channels, tool
// calls, times and files.

func CompactJSON(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return raw
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

// FirstLines returns at most n leading lines of head.
func FirstLines(head []byte, n int) []byte {
	end := 0
	for i := 0; i < n && end < len(head); i++ {
		j := bytes.IndexByte(head[end:], '\n')
		if j < 0 {
			return head
		}
		end += j + 1
	}
	return head[:end]
}

// Placeholder spots the "[trimmed for fixture]"-style values of anonymised files, which must
// not become a chat's identity.
func Placeholder(v string) bool { return strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]") }

func ShortJSONErr(err error) string {
	msg := err.Error()
	if len(msg) > 120 {
		msg = msg[:120] + "..."
	}
	return msg
}

// SizedJSON keeps a value for metadata unless it is large, in which case only a note of its
// size is kept: metadata is for what the source carried, not for a second copy of big data.
func SizedJSON(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	if len(b) > 64<<10 {
		return map[string]any{"omitted_bytes": len(b)}
	}
	return json.RawMessage(b)
}

func DropBlank(ss []string) []string {
	out := ss[:0:0]
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	return out
}

func AddSourceIDs(ids []string, more ...string) []string {
	for _, m := range more {
		dup := false
		for _, id := range ids {
			if id == m {
				dup = true
			}
		}
		if !dup && len(ids) < annals.MaxSourceIDs {
			ids = append(ids, m)
		}
	}
	return ids
}

// JoinMeta merges two metadata objects (b's keys win).
func JoinMeta(a, b json.RawMessage) json.RawMessage {
	if len(a) == 0 {
		return b
	}
	var ma, mb map[string]json.RawMessage
	if json.Unmarshal(a, &ma) != nil || json.Unmarshal(b, &mb) != nil {
		return a
	}
	for k, v := range mb {
		ma[k] = v
	}
	out, err := json.Marshal(ma)
	if err != nil {
		return a
	}
	return out
}

// ResultTime records on a tool entry when its result arrived (annals.MetaResultTime), so a
// viewer can show how long the call ran; a zero time or one before the call records nothing.
func ResultTime(e *annals.Entry, at time.Time) {
	if at.IsZero() || e.Time.IsZero() || at.Before(e.Time) {
		return
	}
	e.Metadata = MergeMeta(e.Metadata, map[string]any{annals.MetaResultTime: at.UTC().Format(time.RFC3339Nano)})
}

func ClampTokens(n int64) int64 {
	if n < 0 {
		return 0
	}
	return n
}

// ChannelPart makes a source's type name a safe channel segment.
func ChannelPart(s string) string {
	if s == "" {
		return "unknown"
	}
	s = strings.Map(func(r rune) rune {
		if r == '/' || r < 0x20 || r == 0x7f {
			return '_'
		}
		return r
	}, s)
	if len(s) > 64 {
		s = s[:64]
	}
	return ValidText(s)
}

// CallArgs keeps a call's arguments as JSON: an object as is, and a JSON-encoded string (the
// OpenAI wire form) decoded when it holds JSON.
func CallArgs(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return RawJSON(s)
		}
	}
	return ValidJSON(raw)
}

func ToolName(name string) string {
	name = SafeID(name, annals.MaxIDBytes)
	if name == "" {
		return "unknown"
	}
	return name
}

func FirstTime(ts ...time.Time) time.Time {
	for _, t := range ts {
		if !t.IsZero() {
			return t
		}
	}
	return time.Time{}
}

// StripTag returns the inside of <tag>...</tag> when s is exactly one such element.
func StripTag(s, tag string) (string, bool) {
	t := strings.TrimSpace(s)
	open, closing := "<"+tag+">", "</"+tag+">"
	if !strings.HasPrefix(t, open) || !strings.HasSuffix(t, closing) {
		return s, false
	}
	inner := t[len(open) : len(t)-len(closing)]
	if strings.Contains(inner, closing) {
		return s, false
	}
	return strings.TrimSpace(inner), true
}

type OpenAICall struct {
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

func IsDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// MilliTime reads an OpenCode time (milliseconds since the epoch).
func MilliTime(o JSONObject, key string) time.Time {
	if o == nil || !o.IsNum(key) {
		return time.Time{}
	}
	return ParseTime(o.Num(key))
}

// MergeMeta adds fields to an entry's metadata object.
func MergeMeta(meta json.RawMessage, add map[string]any) json.RawMessage {
	m := map[string]any{}
	if len(meta) > 0 {
		var cur map[string]json.RawMessage
		if json.Unmarshal(meta, &cur) == nil {
			for k, v := range cur {
				m[k] = v
			}
		}
	}
	for k, v := range add {
		m[k] = v
	}
	return SafeMeta(m)
}

// BoolOrNil keeps a true flag and drops a false one, so metadata stays small.
func BoolOrNil(b bool) any {
	if b {
		return true
	}
	return nil
}

func FirstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// SanitizeChannel turns a source's record type into channel segments: dots and whitespace become
// slashes, so "session.model_change" is filterable as session/model_change.
func SanitizeChannel(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '.' || r == ' ' || r == '\t' || r == ':':
			return '/'
		case r < 0x20 || r == 0x7f:
			return -1
		}
		return r
	}, s)
	s = strings.Trim(s, "/")
	if len(s) > 200 {
		s = s[:200]
	}
	if s == "" {
		return "unknown"
	}
	return ValidText(s)
}

// JSONFiles lists the *.json files of dir in name order. OpenCode names messages and parts by
// ids that sort in creation order, so name order is transcript order.
func JSONFiles(dir string) []string {
	if dir == "" {
		return nil
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".json") {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(out)
	return out
}
