package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/envelope"
	"github.com/annals-dev/annals/history"
)

// envelope runs the loomcycle-style History meta-tool: the envelope decoded by the same strict
// decoder as POST /v1/history and dispatched to the session's service, whose read-only view
// refuses the write ops of a session without writes (a recap there answers the stored
// summary, as history_recap does). The answer is the envelope's own JSON, as structured content
// and as text inside the untrusted block, bounded like every result.
func (ss *session) envelope(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	r, err := envelope.DecodeRequest(strings.NewReader(string(req.Params.Arguments)))
	if err != nil {
		return errorResult(ss.fail(err)), nil
	}
	if ops := ss.envelopeOps(); !slices.Contains(ops, r.Op) {
		return errorResult(ss.fail(annals.Errorf(annals.EINVALID, "op %.40q is not one this session takes (ops: %s)", r.Op, strings.Join(ops, ", ")))), nil
	}
	var out any
	if r.Op == history.OpRecap && !ss.writes {
		chat, summary, _, rerr := ss.recapOf(ctx, r.SessionID, false)
		out, err = &envelope.RecapResponse{Chat: chat, Summary: summary}, rerr
	} else {
		out, err = envelope.Dispatch(ss.as(ctx), ss.svc, r)
	}
	if err != nil {
		return errorResult(ss.fail(err)), nil
	}
	note := ss.boundEnvelope(out)
	shown := inertAnswer(out)
	text := string(marshal(shown))
	res := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: untrusted(text)}}, StructuredContent: shown}
	if !ss.fits(untrusted(text)+note, shown) {
		// Nothing left to cut by field: the text is cut in the middle and stands alone.
		text = middle(text, ss.budget/2, "narrow the request: a smaller limit, or history_read for one session")
		res.Content[0] = &sdk.TextContent{Text: untrusted(text)}
		res.StructuredContent, note = nil, "The answer was over the budget and is cut in the middle."
	}
	if note != "" {
		res.Content = append(res.Content, &sdk.TextContent{Text: note})
	}
	return res, nil
}

// inertAnswer is an envelope answer as the meta-tool shows it: its JSON, in the envelope's own
// field order, with every string value passed through inert as the other tools pass theirs,
// except the ids and cursors a caller sends back as they came.
func inertAnswer(out any) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(marshal(out)))
	dec.UseNumber() // numbers stay exact
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	// One level per open container: an object's current key (its values are named by it) and
	// whether a key comes next; an array's values are named by the key the array is under.
	type level struct {
		object, wantKey bool
		name            string
	}
	stack := []level{{}}
	for {
		tok, err := dec.Token()
		if err != nil {
			break // io.EOF: marshal wrote one whole value
		}
		top := &stack[len(stack)-1]
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			b.WriteByte(byte(d))
			stack = stack[:len(stack)-1]
			if parent := &stack[len(stack)-1]; parent.object {
				parent.wantKey = true
			}
			continue
		}
		if n := b.Len(); n > 0 && !bytes.ContainsAny(b.Bytes()[n-1:], "{[:") {
			b.WriteByte(',')
		}
		if s, ok := tok.(string); ok && top.object && top.wantKey {
			writeJSON(enc, &b, s)
			b.WriteByte(':')
			top.name, top.wantKey = s, false
			continue
		}
		switch v := tok.(type) {
		case json.Delim: // '{' or '['
			b.WriteByte(byte(v))
			stack = append(stack, level{object: v == '{', wantKey: v == '{', name: top.name})
			continue
		case string:
			switch top.name {
			case "id", "session_id", "chat_id", "next_cursor":
				writeJSON(enc, &b, v)
			default:
				writeJSON(enc, &b, inert(v))
			}
		default:
			writeJSON(enc, &b, v)
		}
		if top.object {
			top.wantKey = true
		}
	}
	return json.RawMessage(b.Bytes())
}

// writeJSON appends the JSON of one token without HTML escaping and without the encoder's
// newline.
func writeJSON(enc *json.Encoder, b *bytes.Buffer, v any) {
	_ = enc.Encode(v) // strings, numbers, booleans and null always encode
	b.Truncate(b.Len() - 1)
}

// boundEnvelope shortens an answer in place until it fits the budget: long fields of chats and
// entries cut in the middle, then trailing chats or entries left out. It returns what a reader
// should know about the cut, or "".
func (ss *session) boundEnvelope(out any) string {
	fits := func() bool { return ss.fits(untrusted(string(marshal(out))), out) }
	if fits() {
		return ""
	}
	switch v := out.(type) {
	case *annals.ChatView:
		cutChat(v.Chat, 2048)
		if v.Markdown != "" {
			md := v.Markdown
			n := fitCut(1024, len(md), func(n int) bool { v.Markdown = middle(md, n, "history_read pages through the session"); return fits() })
			v.Markdown = middle(md, n, "history_read pages through the session")
			return "The Markdown export is cut in the middle; history_read pages through the session."
		}
		return ss.boundView(v, fits)
	case *annals.ChatPage:
		for _, c := range v.Chats {
			cutChat(c, 512)
		}
		all := v.Chats
		v.Chats = all[:fitCount(len(all), func(n int) bool { v.Chats = all[:n]; return fits() })]
		return keptNote(len(v.Chats), len(all), "chats", "offset")
	case *annals.SearchPage:
		for _, h := range v.Chats {
			cutChat(h.Chat, 512)
		}
		chats, entries := v.Chats, v.Entries
		n := fitCount(len(chats)+len(entries), func(n int) bool {
			v.Chats, v.Entries = chats[:min(n, len(chats))], entries[:min(n, len(entries))]
			return fits()
		})
		v.Chats, v.Entries = chats[:min(n, len(chats))], entries[:min(n, len(entries))]
		return keptNote(n, len(chats)+len(entries), "results", "offset")
	case *annals.RelatedPage:
		for _, r := range v.Results {
			cutChat(r.Chat, 512)
		}
		all := v.Results
		v.Results = all[:fitCount(len(all), func(n int) bool { v.Results = all[:n]; return fits() })]
		return keptNote(len(v.Results), len(all), "results", "limit")
	case *envelope.ChatResponse:
		cutChat(v.Chat, ss.budget/8)
	case *annals.Recap:
		cutChat(v.Chat, 512)
		s := v.Summary
		n := fitCut(256, len(s), func(n int) bool { v.Summary = middle(s, n, "history_read reads the session"); return fits() })
		v.Summary = middle(s, n, "history_read reads the session")
	}
	return ""
}

// boundView fits a get page: every long entry field cut in the middle (each cut names the call
// that reads the entry whole), then the trailing entries the budget cannot hold left out.
func (ss *session) boundView(view *annals.ChatView, fits func() bool) string {
	if len(view.Entries) == 0 {
		return ""
	}
	fieldCap := max(ss.budget/(8*len(view.Entries)), 256)
	for _, e := range view.Entries {
		more := call("history_read", map[string]any{"id": view.Chat.ID, "seq": e.Seq})
		e.Text = middle(e.Text, fieldCap, more)
		e.Reasoning = middle(e.Reasoning, fieldCap, more)
		if e.Tool != nil {
			e.Tool.Result = middle(e.Tool.Result, fieldCap, more)
			if len(e.Tool.Arguments) > fieldCap {
				s, _ := json.Marshal(middle(string(e.Tool.Arguments), fieldCap, more))
				e.Tool.Arguments = s
			}
		}
		e.Metadata = nil
	}
	all := view.Entries
	n := fitCount(len(all), func(n int) bool { view.Entries = all[:n]; return fits() })
	view.Entries = all[:n]
	if n == len(all) {
		return "Long fields are cut in the middle; each cut names the call that reads the entry whole."
	}
	view.HasMore, view.NextCursor = true, ""
	last := all[n-1].Seq
	return fmt.Sprintf("Only entries up to #%d fit the budget: continue with the same op and session_id and \"after_seq\":%d.", last, last)
}

// cutChat shortens a chat's free-text fields to at most n bytes each and its tags to 16, in
// place: an answer's chat is the service's copy, made for this answer.
func cutChat(c *annals.Chat, n int) {
	if c == nil {
		return
	}
	more := "history_read reads the session"
	c.Title, c.Description, c.Summary = middle(c.Title, n, more), middle(c.Description, n, more), middle(c.Summary, n, more)
	c.Tags = c.Tags[:min(len(c.Tags), 16)]
	for i, t := range c.Tags {
		c.Tags[i] = oneLine(t, 64)
	}
	for k, v := range c.Attributes {
		c.Attributes[k] = middle(v, 256, more)
	}
}

// keptNote says how much of a page the budget kept, and how to get the rest.
func keptNote(kept, all int, what, how string) string {
	if kept == all {
		return ""
	}
	return fmt.Sprintf("Only %d of the page's %d %s fit the budget: ask again with a smaller limit or a larger %s.", kept, all, what, how)
}
