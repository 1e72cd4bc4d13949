package mcp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/annals-dev/annals"
)

type relatedIn struct {
	// sessionRef: find sessions similar to it.
	sessionRef
	Query           string `json:"query,omitempty" jsonschema:"or a text: find sessions about it"`
	Scope           string `json:"scope,omitempty" jsonschema:"whose sessions: self, user, tenant or global (admins)"`
	Limit           int    `json:"limit,omitempty" jsonschema:"sessions to return, 1 to 25"`
	IncludeArchived bool   `json:"include_archived,omitempty" jsonschema:"include archived sessions"`
}

// RelatedOut is the structured answer of history_related.
type RelatedOut struct {
	Chats      []ChatLine `json:"chats"`
	Candidates int        `json:"candidates"`
	Model      string     `json:"model"`
	Notice     string     `json:"notice"`
}

func (ss *session) related(ctx context.Context, _ *sdk.CallToolRequest, in relatedIn) (*sdk.CallToolResult, *RelatedOut, error) {
	id, err := in.given()
	if err != nil {
		return nil, nil, ss.fail(err)
	}
	if (id == "") == (in.Query == "") {
		return nil, nil, fmt.Errorf("invalid: give exactly one of id (a session) or query (a text)")
	}
	page, err := ss.svc.FindRelated(ss.as(ctx), annals.RelatedParams{Scope: annals.Scope(in.Scope), ChatID: id, Query: in.Query, Limit: in.Limit, IncludeArchived: in.IncludeArchived})
	if err != nil {
		return nil, nil, ss.fail(err)
	}
	lines := make([]ChatLine, len(page.Results))
	for i, r := range page.Results {
		lines[i] = chatLine(r.Chat)
		lines[i].Score = float64(r.Score)
	}
	out := &RelatedOut{Candidates: page.Candidates, Model: page.Model, Notice: notice}
	fit := func(n int) (string, bool) {
		out.Chats = lines[:n]
		text := fmt.Sprintf("history_related: %d sessions of %d candidates (%s).", n, out.Candidates, out.Model)
		if n > 0 {
			var body strings.Builder
			for _, l := range out.Chats {
				l.render(&body)
			}
			text += "\n" + untrusted(strings.TrimRight(body.String(), "\n"))
		}
		return text, ss.fits(text, out)
	}
	text, ok := fit(fitCount(len(lines), func(n int) bool { _, ok := fit(n); return ok }))
	if !ok && len(lines) > 0 {
		lines[0] = lines[0].shrunk()
		text, _ = fit(1)
	}
	return textResult(text), out, nil
}

type byIDIn struct {
	sessionRef
}

type recapIn struct {
	sessionRef
	Refresh bool `json:"refresh,omitempty" jsonschema:"compute a new summary although one is stored (needs writes)"`
}

// RecapOut is the structured answer of history_recap.
type RecapOut struct {
	ID      string `json:"id"`
	Title   string `json:"title"`
	Summary string `json:"summary"`
	// Stored is true when the summary was already stored, false when it was computed now.
	Stored    bool   `json:"stored"`
	UpdatedAt string `json:"updated_at,omitempty"`
	Notice    string `json:"notice"`
}

// recap returns the stored summary, and computes (and stores) one only when there is none or a
// refresh was asked for, and only where writes are allowed.
func (ss *session) recap(ctx context.Context, _ *sdk.CallToolRequest, in recapIn) (*sdk.CallToolResult, *RecapOut, error) {
	sel, err := in.chat()
	if err != nil {
		return nil, nil, ss.fail(err)
	}
	chat, summary, stored, err := ss.recapOf(ctx, sel.ID, in.Refresh)
	if err != nil {
		return nil, nil, ss.fail(err)
	}
	out := &RecapOut{ID: chat.ID, Title: inert(oneLine(titleOf(chat), lineBytes)), Stored: stored, Notice: notice}
	if chat.SummaryUpdatedAt != nil {
		out.UpdatedAt = stamp(*chat.SummaryUpdatedAt)
	}
	render := func() string {
		return "history_recap:\n" + untrusted("session: "+out.ID+"\ntitle: "+out.Title+"\n"+out.Summary)
	}
	more := "history_read reads the session itself"
	cut := fitCut(256, len(summary), func(n int) bool {
		out.Summary = inert(middle(summary, n, more))
		return ss.fits(render(), out)
	})
	out.Summary = inert(middle(summary, cut, more))
	return textResult(render()), out, nil
}

// recapOf is a chat with its summary: the stored one, or (none stored, or refresh) one computed
// and stored now where this session may write. The history meta-tool's recap answers the same.
func (ss *session) recapOf(ctx context.Context, id string, refresh bool) (*annals.Chat, string, bool, error) {
	ctx = ss.as(ctx)
	view, err := ss.svc.GetChat(ctx, annals.GetParams{Chat: annals.ChatSelector{ID: id}, Limit: 1})
	if err != nil {
		return nil, "", false, err
	}
	if view.Chat.Summary != "" && !refresh {
		return view.Chat, view.Chat.Summary, true, nil
	}
	if !ss.writes {
		return nil, "", false, annals.Errorf(annals.EFORBIDDEN, "session %s has no stored summary, and computing one stores it, which this session may not do (writes are off: annals mcp --allow-writes, or an operator key); read it with history_read mode overview instead", view.Chat.ID)
	}
	r, err := ss.svc.RecapChat(ctx, annals.ChatSelector{ID: view.Chat.ID})
	if err != nil {
		return nil, "", false, err
	}
	return r.Chat, r.Summary, false, nil
}

// ResumeOut is the structured answer of history_resume.
type ResumeOut struct {
	annals.ResumeHandle
	Notice string `json:"notice"`
}

// resume says how to continue a session. Everything in the handle came from the chat (its
// agent, the directory and command an importer read from the source's files), so all of it
// goes inside the untrusted block.
func (ss *session) resume(ctx context.Context, _ *sdk.CallToolRequest, in byIDIn) (*sdk.CallToolResult, *ResumeOut, error) {
	sel, err := in.chat()
	if err != nil {
		return nil, nil, ss.fail(err)
	}
	h, err := ss.svc.ResumeChat(ss.as(ctx), sel)
	if err != nil {
		return nil, nil, ss.fail(err)
	}
	var body strings.Builder
	fmt.Fprintf(&body, "session: %s\nagent: %s\nstatus: %s\nlast active: %s\n", h.SessionID, h.Agent, h.Status, h.LastActivity)
	if h.Command != "" {
		fmt.Fprintf(&body, "command: %s\n", h.Command)
	}
	if h.Cwd != "" {
		fmt.Fprintf(&body, "directory: %s\n", h.Cwd)
	}
	body.WriteString("hint: " + h.Hint)
	text := "history_resume: how to continue the session; the user runs the command, not you.\n" + untrusted(body.String())
	return textResult(text), &ResumeOut{ResumeHandle: *h, Notice: notice}, nil
}

type docsIn struct{}

// DocsOut is the structured answer of history_docs.
type DocsOut struct {
	Guide string `json:"guide"`
}

func (ss *session) docs(context.Context, *sdk.CallToolRequest, docsIn) (*sdk.CallToolResult, *DocsOut, error) {
	return textResult(guide), &DocsOut{Guide: guide}, nil
}
