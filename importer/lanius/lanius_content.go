package lanius

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/annals-dev/annals/importer/reader"
	"github.com/annals-dev/annals/internal/textcut"
)

// LaniusContentMetaKey is the entry metadata key under which the lanius importer keeps what
// lanius's own view answers for a message's content when the entry's fields cannot say it: a
// content that is no JSON object ({"value": <as lanius reads it>}), or one longer than lanius's
// cap ({"chars": N, "preview": <its first characters>}, lanius's marker). A normalized object
// under the cap is rebuilt from the entry and needs nothing here.
const LaniusContentMetaKey = "lanius_content"

// laniusContentCap and laniusPreviewChars are lanius's view's CONTENT_CAP and the preview it
// shows instead of a longer content: text[:2048], in characters (code points).
const (
	laniusContentCap   = 16 << 10
	laniusPreviewChars = 2048
)

// laniusStoredContent is the LaniusContentMetaKey value of one messages row, nil when none is
// needed (or the row has no content column).
func laniusStoredContent(m map[string]any, col string) map[string]any {
	v, ok := m[col]
	if col == "" || !ok {
		return nil
	}
	if v == nil {
		return map[string]any{"value": nil}
	}
	raw := reader.ColString(m, col)
	if n := utf8.RuneCountInString(raw); n > laniusContentCap {
		return map[string]any{"chars": n, "preview": reader.ValidText(textcut.First(raw, laniusPreviewChars))}
	}
	t := strings.TrimSpace(raw)
	switch {
	case strings.HasPrefix(t, "{") && json.Valid([]byte(t)):
		return nil
	case t != "" && json.Valid([]byte(t)):
		return map[string]any{"value": json.RawMessage(t)}
	}
	return map[string]any{"value": reader.ValidText(raw)}
}
