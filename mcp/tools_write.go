package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/annals-dev/annals"
)

type renameIn struct {
	sessionRef
	Title string `json:"title" jsonschema:"the new title; an empty string clears it"`
}

type annotateIn struct {
	sessionRef
	Description *string   `json:"description,omitempty" jsonschema:"the new description (omit to keep it)"`
	Tags        *[]string `json:"tags,omitempty" jsonschema:"the new tags, replacing the old (omit to keep them, [] clears them)"`
}

type pinIn struct {
	sessionRef
	Pinned *bool `json:"pinned,omitempty" jsonschema:"true (default) pins, false unpins"`
}

type archiveIn struct {
	sessionRef
	Archived *bool `json:"archived,omitempty" jsonschema:"true (default) archives, false restores"`
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
	// The session's id, like its title, goes inside the block (it is the caller's text).
	return textResult(fmt.Sprintf("%s the session:\n%s", verb, untrusted(strings.TrimRight(body.String(), "\n")))), &ChatOut{Chat: l, Notice: notice}, nil
}

func (ss *session) rename(ctx context.Context, _ *sdk.CallToolRequest, in renameIn) (*sdk.CallToolResult, *ChatOut, error) {
	sel, err := in.chat()
	if err != nil {
		return nil, nil, ss.fail(err)
	}
	chat, err := ss.svc.RenameChat(ss.as(ctx), sel, in.Title)
	return ss.curated("Renamed", chat, err)
}

func (ss *session) annotate(ctx context.Context, _ *sdk.CallToolRequest, in annotateIn) (*sdk.CallToolResult, *ChatOut, error) {
	sel, err := in.chat()
	if err != nil {
		return nil, nil, ss.fail(err)
	}
	if in.Description == nil && in.Tags == nil {
		return nil, nil, fmt.Errorf("invalid: give description, tags or both")
	}
	chat, err := ss.svc.AnnotateChat(ss.as(ctx), sel, annals.Annotation{Description: in.Description, Tags: in.Tags})
	return ss.curated("Annotated", chat, err)
}

func (ss *session) pin(ctx context.Context, _ *sdk.CallToolRequest, in pinIn) (*sdk.CallToolResult, *ChatOut, error) {
	sel, err := in.chat()
	if err != nil {
		return nil, nil, ss.fail(err)
	}
	on := in.Pinned == nil || *in.Pinned
	chat, err := ss.svc.PinChat(ss.as(ctx), sel, on)
	return ss.curated(map[bool]string{true: "Pinned", false: "Unpinned"}[on], chat, err)
}

func (ss *session) archive(ctx context.Context, _ *sdk.CallToolRequest, in archiveIn) (*sdk.CallToolResult, *ChatOut, error) {
	sel, err := in.chat()
	if err != nil {
		return nil, nil, ss.fail(err)
	}
	on := in.Archived == nil || *in.Archived
	chat, err := ss.svc.ArchiveChat(ss.as(ctx), sel, on)
	return ss.curated(map[bool]string{true: "Archived", false: "Restored"}[on], chat, err)
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
