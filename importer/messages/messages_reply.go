package messages

import (
	"bytes"
	"encoding/json"
	"github.com/annals-dev/annals/importer/reader"
	"strings"
	"time"
)

// msgUsage is a reply's tokens: in is the whole prompt, read and made the part of it read
// from and written to the prompt cache.
type msgUsage struct{ in, out, read, made int64 }

type msgReply struct {
	model   string
	created time.Time
	usage   *msgUsage
	item    *msgItem
	extra   []msgItem
}

// msgResponse reads a response body: Chat Completions, Anthropic Messages or Responses API
// JSON, or a server-sent event stream of either's chunks.
func msgResponse(raw json.RawMessage) msgReply {
	var reply msgReply
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return reply
	}
	if raw[0] == '"' {
		var s string
		_ = json.Unmarshal(raw, &s)
		return msgStream(s)
	}
	var r struct {
		Model   string          `json:"model"`
		Created any             `json:"created"`
		At      any             `json:"created_at"`
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
		Choices []struct {
			Message json.RawMessage `json:"message"`
		} `json:"choices"`
		Output []json.RawMessage `json:"output"`
		Usage  *struct {
			Prompt     int64 `json:"prompt_tokens"`
			Completion int64 `json:"completion_tokens"`
			Input      int64 `json:"input_tokens"`
			Output     int64 `json:"output_tokens"`
			CacheRead  int64 `json:"cache_read_input_tokens"`
			CacheMake  int64 `json:"cache_creation_input_tokens"`
		} `json:"usage"`
	}
	if json.Unmarshal(raw, &r) != nil {
		return reply
	}
	reply.model = r.Model
	reply.created = reader.ParseTime(r.Created)
	if reply.created.IsZero() {
		reply.created = reader.ParseTime(r.At)
	}
	if u := r.Usage; u != nil {
		reply.usage = &msgUsage{in: u.Prompt + u.Input + u.CacheRead + u.CacheMake, out: u.Completion + u.Output, read: u.CacheRead, made: u.CacheMake}
	}
	tmp := &msgTranscript{}
	switch {
	case len(r.Choices) > 0:
		_ = tmp.message(r.Choices[0].Message)
	case r.Role != "":
		_ = tmp.message(raw)
	case len(r.Output) > 0:
		for _, o := range r.Output {
			_ = tmp.message(o)
		}
	}
	if len(tmp.msgs) > 0 {
		reply.item = &tmp.msgs[0]
		reply.extra = tmp.msgs[1:]
	}
	return reply
}

// msgStream assembles a server-sent event stream of Chat Completions chunks or Anthropic
// Messages events into one reply.
func msgStream(s string) msgReply {
	st := &msgStreamState{it: &msgItem{role: "assistant"}, byIndex: map[int]*msgPartialCall{}}
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "data:") {
			continue
		}
		data := strings.TrimSpace(strings.TrimPrefix(line, "data:"))
		if data == "" || data == "[DONE]" {
			continue
		}
		var ev msgStreamEvent
		if json.Unmarshal([]byte(data), &ev) != nil {
			continue
		}
		st.event(&ev)
	}
	return st.finish()
}

// msgStreamEvent is one event of either stream: the Anthropic fields and the Chat Completions
// chunk fields side by side, since a line does not say which it is.
type msgStreamEvent struct {
	Type    string `json:"type"`
	Model   string `json:"model"`
	Created any    `json:"created"`
	Index   int    `json:"index"`
	Message *struct {
		Model string `json:"model"`
		Usage *struct {
			Input     int64 `json:"input_tokens"`
			CacheRead int64 `json:"cache_read_input_tokens"`
			CacheMake int64 `json:"cache_creation_input_tokens"`
		} `json:"usage"`
	} `json:"message"`
	ContentBlock *struct {
		Type string `json:"type"`
		ID   string `json:"id"`
		Name string `json:"name"`
		Text string `json:"text"`
	} `json:"content_block"`
	Delta *struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		Thinking    string `json:"thinking"`
		PartialJSON string `json:"partial_json"`
	} `json:"delta"`
	Usage *struct {
		Output     int64 `json:"output_tokens"`
		Prompt     int64 `json:"prompt_tokens"`
		Completion int64 `json:"completion_tokens"`
	} `json:"usage"`
	Choices []struct {
		Delta struct {
			Content   *string `json:"content"`
			ToolCalls []struct {
				Index    int    `json:"index"`
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
	} `json:"choices"`
}

// msgPartialCall is a tool call whose arguments arrive in pieces.
type msgPartialCall struct {
	id, name string
	args     strings.Builder
}

// msgStreamState is what a stream has given so far.
type msgStreamState struct {
	reply          msgReply
	it             *msgItem
	text, thinking strings.Builder
	calls          []*msgPartialCall
	byIndex        map[int]*msgPartialCall
}

func (st *msgStreamState) event(ev *msgStreamEvent) {
	if ev.Model != "" {
		st.reply.model = ev.Model
	}
	if t := reader.ParseTime(ev.Created); !t.IsZero() && st.reply.created.IsZero() {
		st.reply.created = t
	}
	st.anthropic(ev)
	st.chunk(ev)
	if ev.Type == "" && ev.Usage != nil && (ev.Usage.Prompt > 0 || ev.Usage.Completion > 0) {
		st.reply.usage = &msgUsage{in: ev.Usage.Prompt, out: ev.Usage.Completion}
	}
}

// anthropic applies an Anthropic Messages event.
func (st *msgStreamState) anthropic(ev *msgStreamEvent) {
	switch ev.Type {
	case "message_start":
		if m := ev.Message; m != nil {
			st.reply.model = m.Model
			if u := m.Usage; u != nil {
				st.reply.usage = &msgUsage{in: u.Input + u.CacheRead + u.CacheMake, read: u.CacheRead, made: u.CacheMake}
			}
		}
	case "content_block_start":
		if b := ev.ContentBlock; b != nil {
			switch b.Type {
			case "tool_use", "server_tool_use":
				p := &msgPartialCall{id: b.ID, name: b.Name}
				st.calls = append(st.calls, p)
				st.byIndex[ev.Index] = p
			case "text":
				st.text.WriteString(b.Text)
			case "redacted_thinking":
				st.it.encrypted = true
			}
		}
	case "content_block_delta":
		if d := ev.Delta; d != nil {
			switch d.Type {
			case "text_delta":
				st.text.WriteString(d.Text)
			case "thinking_delta":
				st.thinking.WriteString(d.Thinking)
			case "input_json_delta":
				if p := st.byIndex[ev.Index]; p != nil {
					p.args.WriteString(d.PartialJSON)
				}
			}
		}
	case "message_delta":
		if ev.Usage != nil {
			if st.reply.usage == nil {
				st.reply.usage = &msgUsage{}
			}
			st.reply.usage.out = ev.Usage.Output
		}
	}
}

// chunk applies a Chat Completions chunk's deltas.
func (st *msgStreamState) chunk(ev *msgStreamEvent) {
	for _, ch := range ev.Choices {
		if ch.Delta.Content != nil {
			st.text.WriteString(*ch.Delta.Content)
		}
		for _, tc := range ch.Delta.ToolCalls {
			p := st.byIndex[tc.Index]
			if p == nil {
				p = &msgPartialCall{}
				st.byIndex[tc.Index] = p
				st.calls = append(st.calls, p)
			}
			if tc.ID != "" {
				p.id = tc.ID
			}
			if tc.Function.Name != "" {
				p.name = tc.Function.Name
			}
			p.args.WriteString(tc.Function.Arguments)
		}
	}
}

func (st *msgStreamState) finish() msgReply {
	it := st.it
	it.text = st.text.String()
	it.reasoning = st.thinking.String()
	for _, p := range st.calls {
		it.calls = append(it.calls, msgCall{id: p.id, name: p.name, args: msgArgs(reader.JSONString(p.args.String()))})
	}
	if it.text != "" || it.reasoning != "" || len(it.calls) > 0 || it.encrypted {
		st.reply.item = it
	}
	return st.reply
}

// msgCache is the cache's part of a reply's prompt, and the prompt (the context's size), each
// clamped to what the run may record (a log's negative or inconsistent counts are dropped).
func msgCache(u *msgUsage) (read, made, context int64) {
	in := reader.ClampTokens(u.in)
	read = min(reader.ClampTokens(u.read), in)
	made = min(reader.ClampTokens(u.made), in-read)
	return read, made, in
}
