package queryview

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/view"
)

// hostile are strings whose JSON escaping a hand-written encoder gets wrong first: invalid
// UTF-8, the separators JavaScript reads as line ends, characters HTML gives meaning to,
// control characters, quotes and backslashes, multi-byte and astral characters.
var hostile = []string{
	"", "plain", "\xff\xfe invalid \xc3", "a\u2028b\u2029c", "<script>&amp;</script>",
	"\x00\x01\x07\b\f\n\r\t\x1f\x7f", `"quoted" \back\slash`, "é 漢 🦅", "\xe2\x80", "…",
}

func hostileMessages() []view.Message {
	var ms []view.Message
	eid := int64(42)
	for i, s := range hostile {
		t := time.Date(2026, 6, 1, 0, 0, 0, i*1_000_500, time.UTC)
		ms = append(ms,
			view.Message{ID: int64(i), Session: s, Role: annals.KindUser, Channel: s, Correlation: s, CreatedAt: t,
				Content: view.Content{Role: annals.KindUser, Text: view.Text{Value: s}, Reasoning: &view.Text{Value: s, Truncated: true, Chars: 99}}},
			view.Message{ID: int64(i), Session: "s", Role: annals.KindAssistant, EventID: &eid, CreatedAt: t,
				Content: view.Content{Role: annals.KindAssistant, Text: view.Text{Value: s, Truncated: i%2 == 0, Chars: 7},
					ToolCalls: []view.Call{{CallID: s, Name: s, Arguments: &view.JSON{Raw: json.RawMessage(`{ "cmd" : "` + "<&>\u2028" + `" }`)}},
						{CallID: "c", Name: "n"}, {CallID: "c", Name: "n", Arguments: &view.JSON{Truncated: true, Chars: 5, Preview: s}}}}},
			view.Message{ID: int64(i), Session: "s", Role: annals.KindTool, CreatedAt: t,
				Content: view.Content{Role: annals.KindTool, Text: view.Text{Value: s},
					Tool: &view.Tool{Name: s, CallID: s, Arguments: &view.JSON{}, Result: view.Text{Value: s, Truncated: i%3 == 0, Chars: 3},
						Outcome: annals.Outcome(s), TruncatedTo: map[bool]json.RawMessage{true: json.RawMessage("true"), false: nil}[i%2 == 1]}}},
			view.Message{ID: int64(i), Session: "s", Role: annals.KindTool, CreatedAt: t,
				Content: view.Content{Role: annals.KindTool, Tool: &view.Tool{Result: view.Text{Value: s, Truncated: true}, TruncatedTo: json.RawMessage{}}}},
			view.Message{ID: int64(i), Session: "s", Role: annals.KindUser, CreatedAt: t,
				Content: view.Content{Stored: json.RawMessage("[ \"a<b\" ,\n 1 , {\"x\": \"\u2029\"} ]")}},
		)
	}
	return ms
}

// TestAnswersAppendJSONMatchesMarshal holds the answers' own encoders to encoding/json's bytes on
// every shape of message and event, hostile strings included.
func TestAnswersAppendJSONMatchesMarshal(t *testing.T) {
	ms := hostileMessages()
	next := int64(7)
	cursor := "c<&>\u2028"
	var events []Event
	for _, s := range hostile {
		events = append(events,
			Event{ID: 1, Type: s, CauseID: jsonNull, State: json.RawMessage(`"pending"`), Payload: payloadOf(view.Text{Value: s}), CreatedAt: s, Session: s},
			Event{ID: 2, Type: s, CauseID: json.RawMessage("12"), State: jsonNull, Payload: payloadOf(view.Text{Value: `{"text": "` + s + `", "n": [1, 2]}`})})
	}
	answers := []interface {
		AppendJSON([]byte) ([]byte, error)
	}{
		&TranscriptAnswer{Head: head(KindTranscript), Session: "s<1>", Messages: ms, HasMore: true, BeforeIDNext: &next, Limit: 80, Caps: Caps{1, 2}, Scope: "tenant"},
		&TranscriptAnswer{Head: head(KindTranscript), Messages: []view.Message{}},
		&TranscriptAnswer{Head: head(KindTranscript)},
		&SearchAnswer{Head: head(KindSearch), Messages: ms, HasMore: true, Cursor: &cursor, Limit: 3, Scope: "self"},
		&SearchAnswer{Head: head(KindSearch), Messages: []view.Message{}},
		&ConversationAnswer{Head: head(KindConversation), Correlation: "\u2028", Events: events, Truncated: true, Messages: ms, Cursor: &cursor},
		&ConversationAnswer{Head: head(KindConversation), Events: []Event{}, Messages: []view.Message{}},
		&ConversationAnswer{Head: head(KindConversation)},
	}
	for i, a := range answers {
		want, err := json.Marshal(a)
		if err != nil {
			t.Fatalf("answer %d: json.Marshal: %v", i, err)
		}
		got, err := a.AppendJSON(nil)
		if err != nil {
			t.Fatalf("answer %d: AppendJSON: %v", i, err)
		}
		if !bytes.Equal(got, want) {
			j := 0
			for j < len(got) && j < len(want) && got[j] == want[j] {
				j++
			}
			t.Errorf("answer %d differs at byte %d:\n got  %.200q\n want %.200q", i, j, got[max(j-40, 0):], want[max(j-40, 0):])
		}
		// Appending to a buffer keeps what it holds.
		if got, _ := a.AppendJSON([]byte("prefix")); !bytes.Equal(got, append([]byte("prefix"), want...)) {
			t.Errorf("answer %d: AppendJSON after a prefix differs", i)
		}
	}
	// A stored value that is no JSON fails as json.Marshal fails, never writes broken JSON.
	bad := &SearchAnswer{Head: head(KindSearch), Messages: []view.Message{{Content: view.Content{Stored: json.RawMessage("{nope")}}}}
	if _, err := json.Marshal(bad); err == nil {
		t.Fatal("json.Marshal accepted invalid stored JSON")
	}
	if _, err := bad.AppendJSON(nil); err == nil {
		t.Error("AppendJSON accepted invalid stored JSON")
	}
}
