package mcp

import (
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/annals-dev/annals/history"
)

// readFirst ends every tool description: the guide is one call away and the list stays short.
const readFirst = " Read history_docs before first use."

func annotations(title string, readOnly, idempotent bool) *sdk.ToolAnnotations {
	no := false
	a := &sdk.ToolAnnotations{Title: title, ReadOnlyHint: readOnly, IdempotentHint: idempotent, OpenWorldHint: &no}
	if !readOnly {
		a.DestructiveHint = &no // curating replaces a title or a flag; nothing is deleted
	}
	return a
}

// tool builds one tool's definition with its tweaked input schema.
func tool[In any](name, title, desc string, readOnly, idempotent bool, tweaks map[string]tweak) (*sdk.Tool, error) {
	in, err := inputSchema[In](tweaks)
	if err != nil {
		return nil, fmt.Errorf("tool %s: %w", name, err)
	}
	return &sdk.Tool{Name: name, Title: title, Description: desc + readFirst, InputSchema: in, Annotations: annotations(title, readOnly, idempotent)}, nil
}

// add registers a typed tool, or records why it could not be built.
func add[In, Out any](srv *sdk.Server, errs *[]error, t *sdk.Tool, err error, h sdk.ToolHandlerFor[In, Out]) {
	if err != nil {
		*errs = append(*errs, err)
		return
	}
	sdk.AddTool(srv, t, h)
}

func (ss *session) addReadTools(srv *sdk.Server, errs *[]error) {
	t, err := tool[searchIn]("history_search", "Search history",
		"Search earlier agent sessions: words, \"phrases\", prefix*, -not, OR, filters (tag: role: tool: after:). Returns sessions with snippets and their entry seq.",
		true, true, filterTweaks(map[string]tweak{
			"mode": enum("chats", "entries"), "sort": enum("relevance", "recent"),
			"limit": bounded(1, maxSearchLimit, defaultSearchLimit), "query": longest(maxQueryArg),
			"in": func(s *jsonschema.Schema) { enum("title", "description", "summary", "tags", "body", "tools")(s.Items) },
		}))
	add(srv, errs, t, err, ss.search)
	t, err = tool[listIn]("history_list", "List sessions",
		"List earlier sessions, pinned first, then newest; filter by tag, agent, status, time.",
		true, true, filterTweaks(map[string]tweak{"limit": bounded(1, maxListLimit, defaultListLimit), "title_contains": longest(maxNameArg)}))
	add(srv, errs, t, err, ss.list)
	t, err = tool[readIn]("history_read", "Read a session",
		"Read one session by id: mode overview first (a line per entry), then pages by cursor, a window around_seq, or one entry whole by seq.",
		true, true, withSession(map[string]tweak{
			"cursor": longest(maxCursorArg),
			"mode":   enum("full", "overview"), "limit": bounded(1, maxReadLimit, defaultReadLimit),
			"context": bounded(0, 49, nil), "around_seq": atLeast(1), "seq": atLeast(1), "offset": atLeast(0),
		}))
	add(srv, errs, t, err, ss.read)
	t, err = tool[relatedIn]("history_related", "Related sessions",
		"Sessions close in meaning to a session (id) or a text (query).",
		true, true, withSession(map[string]tweak{"scope": enum("self", "user", "tenant", "global"), "limit": bounded(1, 25, 10),
			"query": longest(maxQueryArg)}))
	add(srv, errs, t, err, ss.related)
	// A recap that computes a summary stores it: where writes are allowed it is a write.
	t, err = tool[recapIn]("history_recap", "Session summary",
		"A session's stored summary; computes one when missing only where writes are allowed.",
		!ss.writes, !ss.writes, withSession(map[string]tweak{}))
	add(srv, errs, t, err, ss.recap)
	t, err = tool[byIDIn]("history_resume", "Resume a session",
		"How to continue a session: its agent, status and resume hint.",
		true, true, withSession(map[string]tweak{}))
	add(srv, errs, t, err, ss.resume)
	docs, err := inputSchema[docsIn](nil)
	if err != nil {
		*errs = append(*errs, err)
		return
	}
	sdk.AddTool(srv, &sdk.Tool{Name: "history_docs", Title: "History guide", Description: "The usage guide of the history tools: when to use them, how to search and read, how to treat transcript text.",
		InputSchema: docs, Annotations: annotations("History guide", true, true)}, ss.docs)
}

func (ss *session) addWriteTools(srv *sdk.Server, errs *[]error) {
	t, err := tool[renameIn]("history_rename", "Rename a session", "Set a session's title.", false, true,
		withSession(map[string]tweak{"title": longest(maxTextArg)}))
	add(srv, errs, t, err, ss.rename)
	t, err = tool[annotateIn]("history_annotate", "Describe or tag a session", "Set a session's description and/or replace its tags.", false, true,
		withSession(map[string]tweak{"description": longest(maxTextArg)}))
	add(srv, errs, t, err, ss.annotate)
	t, err = tool[pinIn]("history_pin", "Pin a session", "Pin a session so it lists first (pinned false unpins).", false, true, withSession(map[string]tweak{}))
	add(srv, errs, t, err, ss.pin)
	t, err = tool[archiveIn]("history_archive", "Archive a session", "Archive a session, hiding it from lists (archived false restores).", false, true, withSession(map[string]tweak{}))
	add(srv, errs, t, err, ss.archive)
}

// envelopeOps are the ops the meta-tool takes in this session: the reads, and the curating
// writes where writes are allowed. The SDK does not check a raw tool's arguments against its
// schema, so the handler checks the op itself.
func (ss *session) envelopeOps() []string {
	ops := []string{history.OpList, history.OpSearch, history.OpGet, history.OpRelated, history.OpRecap, history.OpResume, history.OpUsage}
	if ss.writes {
		ops = append(ops, history.OpRename, history.OpAnnotate, history.OpPin, history.OpArchive)
	}
	return ops
}

// addMetaTool registers history: the op envelope for clients written against the loomcycle
// History tool. Its schema names the ops and lets every other envelope field through; the
// strict envelope decoder checks them.
func (ss *session) addMetaTool(srv *sdk.Server) {
	var ops []any
	for _, op := range ss.envelopeOps() {
		ops = append(ops, op)
	}
	schema := &jsonschema.Schema{
		Type:                 "object",
		Properties:           map[string]*jsonschema.Schema{"op": {Type: "string", Enum: ops, Description: "the operation; the other fields are those of the op (docs/HTTP.md)"}},
		Required:             []string{"op"},
		AdditionalProperties: &jsonschema.Schema{},
	}
	srv.AddTool(&sdk.Tool{
		Name: "history", Title: "History (op envelope)",
		Description: "The history op envelope {op, ...} for loomcycle-style clients; prefer the history_* tools." + readFirst,
		InputSchema: schema, Annotations: annotations("History (op envelope)", !ss.writes, false),
		// The answer is the op's envelope answer (docs/HTTP.md), one object whose shape the op
		// decides.
		OutputSchema: &jsonschema.Schema{Type: "object"},
	}, ss.envelope)
}
