package mcp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/annals-dev/annals"
)

type relatedIn struct {
	ID              string `json:"id,omitempty" jsonschema:"a session id: find sessions similar to it"`
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
	if (in.ID == "") == (in.Query == "") {
		return nil, nil, fmt.Errorf("invalid: give exactly one of id (a session) or query (a text)")
	}
	page, err := ss.svc.FindRelated(ss.as(ctx), annals.RelatedParams{Scope: annals.Scope(in.Scope), ChatID: in.ID, Query: in.Query, Limit: in.Limit, IncludeArchived: in.IncludeArchived})
	if err != nil {
		return nil, nil, ss.fail(err)
	}
	out := &RelatedOut{Chats: []ChatLine{}, Candidates: page.Candidates, Model: page.Model, Notice: notice}
	b := budget{left: ss.budget / 2}
	var body strings.Builder
	for _, r := range page.Results {
		l := chatLine(r.Chat)
		l.Score = float64(r.Score)
		if !b.take(l.size()) {
			break
		}
		out.Chats = append(out.Chats, l)
		l.render(&body)
	}
	text := fmt.Sprintf("history_related: %d sessions of %d candidates (%s).", len(out.Chats), out.Candidates, out.Model)
	if len(out.Chats) > 0 {
		text += "\n" + untrusted(strings.TrimRight(body.String(), "\n"))
	}
	return textResult(text), out, nil
}

type byIDIn struct {
	ID string `json:"id" jsonschema:"the session id"`
}

type recapIn struct {
	ID      string `json:"id" jsonschema:"the session id"`
	Refresh bool   `json:"refresh,omitempty" jsonschema:"compute a new summary although one is stored (needs writes)"`
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
// refresh was asked for — which the read-only service of a session without writes refuses.
func (ss *session) recap(ctx context.Context, _ *sdk.CallToolRequest, in recapIn) (*sdk.CallToolResult, *RecapOut, error) {
	ctx = ss.as(ctx)
	view, err := ss.svc.GetChat(ctx, annals.GetParams{Chat: annals.ChatSelector{ID: in.ID}, Limit: 1})
	if err != nil {
		return nil, nil, ss.fail(err)
	}
	chat := view.Chat
	out := &RecapOut{ID: chat.ID, Title: oneLine(titleOf(chat), lineBytes), Notice: notice}
	if chat.Summary != "" && !in.Refresh {
		out.Summary, out.Stored = chat.Summary, true
	} else {
		if !ss.writes {
			return nil, nil, fmt.Errorf("forbidden: session %s has no stored summary, and computing one stores it, which this session may not do (writes are off: annals mcp --allow-writes, or an operator key); read it with history_read mode overview instead", chat.ID)
		}
		r, err := ss.svc.RecapChat(ctx, annals.ChatSelector{ID: chat.ID})
		if err != nil {
			return nil, nil, ss.fail(err)
		}
		chat, out.Summary = r.Chat, r.Summary
	}
	if chat.SummaryUpdatedAt != nil {
		out.UpdatedAt = chat.SummaryUpdatedAt.UTC().Format("2006-01-02T15:04:05Z")
	}
	out.Summary = middle(out.Summary, ss.budget/2-400, "history_read reads the session itself")
	return textResult(fmt.Sprintf("history_recap: session %s.\n%s", out.ID, untrusted("title: "+out.Title+"\n"+out.Summary))), out, nil
}

// ResumeOut is the structured answer of history_resume.
type ResumeOut struct {
	annals.ResumeHandle
}

func (ss *session) resume(ctx context.Context, _ *sdk.CallToolRequest, in byIDIn) (*sdk.CallToolResult, *ResumeOut, error) {
	h, err := ss.svc.ResumeChat(ss.as(ctx), annals.ChatSelector{ID: in.ID})
	if err != nil {
		return nil, nil, ss.fail(err)
	}
	text := fmt.Sprintf("history_resume: session %s of agent %q, status %q, last active %s.\n%s", h.SessionID, h.Agent, h.Status, h.LastActivity, untrusted(h.Hint))
	return textResult(text), &ResumeOut{*h}, nil
}

type docsIn struct{}

// DocsOut is the structured answer of history_docs.
type DocsOut struct {
	Guide string `json:"guide"`
}

func (ss *session) docs(context.Context, *sdk.CallToolRequest, docsIn) (*sdk.CallToolResult, *DocsOut, error) {
	return textResult(guide), &DocsOut{Guide: guide}, nil
}
