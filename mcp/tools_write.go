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
	"github.com/annals-dev/annals/history"
)

type renameIn struct {
	ID    string `json:"id" jsonschema:"the session id"`
	Title string `json:"title" jsonschema:"the new title; an empty string clears it"`
}

type annotateIn struct {
	ID          string    `json:"id" jsonschema:"the session id"`
	Description *string   `json:"description,omitempty" jsonschema:"the new description (omit to keep it)"`
	Tags        *[]string `json:"tags,omitempty" jsonschema:"the new tags, replacing the old (omit to keep them, [] clears them)"`
}

type pinIn struct {
	ID     string `json:"id" jsonschema:"the session id"`
	Pinned *bool  `json:"pinned,omitempty" jsonschema:"true (default) pins, false unpins"`
}

type archiveIn struct {
	ID       string `json:"id" jsonschema:"the session id"`
	Archived *bool  `json:"archived,omitempty" jsonschema:"true (default) archives, false restores"`
}

// ChatOut is the structured answer of the curating tools: the session as it now is.
type ChatOut struct {
	Chat   ChatLine `json:"chat"`
	Notice string   `json:"notice"`
}

func (ss *session) curated(verb string, chat *annals.Chat, err error) (*sdk.CallToolResult, *ChatOut, error) {
	if err != nil {
		return nil, nil, ss.fail(err)
	}
	l := chatLine(chat)
	var body strings.Builder
	l.render(&body)
	return textResult(fmt.Sprintf("%s session %s.\n%s", verb, chat.ID, untrusted(strings.TrimRight(body.String(), "\n")))), &ChatOut{Chat: l, Notice: notice}, nil
}

func (ss *session) rename(ctx context.Context, _ *sdk.CallToolRequest, in renameIn) (*sdk.CallToolResult, *ChatOut, error) {
	chat, err := ss.svc.RenameChat(ss.as(ctx), annals.ChatSelector{ID: in.ID}, in.Title)
	return ss.curated("Renamed", chat, err)
}

func (ss *session) annotate(ctx context.Context, _ *sdk.CallToolRequest, in annotateIn) (*sdk.CallToolResult, *ChatOut, error) {
	if in.Description == nil && in.Tags == nil {
		return nil, nil, fmt.Errorf("invalid: give description, tags or both")
	}
	chat, err := ss.svc.AnnotateChat(ss.as(ctx), annals.ChatSelector{ID: in.ID}, annals.Annotation{Description: in.Description, Tags: in.Tags})
	return ss.curated("Annotated", chat, err)
}

func (ss *session) pin(ctx context.Context, _ *sdk.CallToolRequest, in pinIn) (*sdk.CallToolResult, *ChatOut, error) {
	on := in.Pinned == nil || *in.Pinned
	chat, err := ss.svc.PinChat(ss.as(ctx), annals.ChatSelector{ID: in.ID}, on)
	return ss.curated(map[bool]string{true: "Pinned", false: "Unpinned"}[on], chat, err)
}

func (ss *session) archive(ctx context.Context, _ *sdk.CallToolRequest, in archiveIn) (*sdk.CallToolResult, *ChatOut, error) {
	on := in.Archived == nil || *in.Archived
	chat, err := ss.svc.ArchiveChat(ss.as(ctx), annals.ChatSelector{ID: in.ID}, on)
	return ss.curated(map[bool]string{true: "Archived", false: "Restored"}[on], chat, err)
}

// envelope runs the loomcycle-style History meta-tool: the envelope decoded by the same strict
// decoder as POST /v1/history and dispatched to the session's service, whose read-only view
// refuses the write ops of a session without writes. The answer is the envelope's own JSON,
// bounded like every result.
func (ss *session) envelope(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	r, err := history.DecodeRequest(strings.NewReader(string(req.Params.Arguments)))
	if err != nil {
		return errorResult(ss.fail(err)), nil
	}
	if ops := ss.envelopeOps(); !slices.Contains(ops, r.Op) {
		return errorResult(fmt.Errorf("invalid: op %q is not one this session takes (ops: %s)", r.Op, strings.Join(ops, ", "))), nil
	}
	out, err := history.Dispatch(ss.as(ctx), ss.svc, r)
	if err != nil {
		return errorResult(ss.fail(err)), nil
	}
	text, cut := ss.boundEnvelope(out)
	res := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: untrusted(text)}}}
	if cut != "" {
		res.Content = append(res.Content, &sdk.TextContent{Text: cut})
	}
	return res, nil
}

// boundEnvelope is the answer's JSON within the budget. A get page that does not fit loses long
// fields first (cut in the middle) and then trailing entries; any other answer over the budget
// is cut in the middle. cut says what was left out and how to read it.
func (ss *session) boundEnvelope(out any) (text, cut string) {
	limit := ss.budget - 600
	b := marshal(out)
	if len(b) <= limit {
		return string(b), ""
	}
	if view, ok := out.(*annals.ChatView); ok && len(view.Entries) > 0 {
		return ss.boundView(view, limit)
	}
	return middle(string(b), limit, "narrow the request: a smaller limit, or history_read for one session"), "The answer was over the budget and is cut in the middle."
}

func (ss *session) boundView(view *annals.ChatView, limit int) (string, string) {
	fieldCap := max(limit/(4*len(view.Entries)), 256)
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
	all := len(view.Entries)
	for kept := all; ; kept-- {
		view.Entries = view.Entries[:kept]
		if kept < all {
			view.HasMore, view.NextCursor = true, ""
		}
		b := marshal(view)
		if len(b) <= limit || kept == 1 {
			if kept == all {
				return string(b), "Long fields are cut in the middle; each cut names the call that reads it whole."
			}
			last := view.Entries[kept-1].Seq
			return string(b), fmt.Sprintf("Only entries up to #%d fit the budget: continue with {\"op\":\"get\",\"session_id\":%q,\"after_seq\":%d}.", last, view.Chat.ID, last)
		}
	}
}

func errorResult(err error) *sdk.CallToolResult {
	res := &sdk.CallToolResult{}
	res.SetError(err)
	return res
}

// marshal is the JSON of an answer as the model reads it: without HTML escaping, which would
// turn every < of a transcript into \u003c and hide the text from the model, not from harm
// (neutralise keeps the untrusted block closed).
func marshal(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // answers of the service always encode
	return bytes.TrimRight(buf.Bytes(), "\n")
}
