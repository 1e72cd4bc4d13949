package history

import (
	"context"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/view"
)

// View returns the query view v bound to the caller like the history: every query runs as
// the caller's principal, whatever the context carries. The view only reads.
func (c *Caller) View(v view.Service) view.Service { return boundView{v: v, c: c} }

type boundView struct {
	v view.Service
	c *Caller
}

var _ view.Service = boundView{}

func (b boundView) ViewScope(ctx context.Context, scope annals.Scope) (annals.Scope, error) {
	return b.v.ViewScope(b.c.as(ctx), scope)
}

func (b boundView) ViewAgents(ctx context.Context, scope annals.Scope, f view.AgentsFilter) (*view.Agents, error) {
	return b.v.ViewAgents(b.c.as(ctx), scope, f)
}

func (b boundView) ViewSessions(ctx context.Context, scope annals.Scope, f view.SessionsFilter) (*view.SessionList, error) {
	return b.v.ViewSessions(b.c.as(ctx), scope, f)
}

func (b boundView) ViewTranscript(ctx context.Context, scope annals.Scope, f view.TranscriptFilter) (*view.Page, error) {
	return b.v.ViewTranscript(b.c.as(ctx), scope, f)
}

func (b boundView) ViewConversation(ctx context.Context, scope annals.Scope, f view.ConversationFilter) (*view.Page, error) {
	return b.v.ViewConversation(b.c.as(ctx), scope, f)
}

func (b boundView) ViewToolCalls(ctx context.Context, scope annals.Scope, f view.ToolCallsFilter) (map[view.Ref][]view.Call, error) {
	return b.v.ViewToolCalls(b.c.as(ctx), scope, f)
}

func (b boundView) ViewLocate(ctx context.Context, scope annals.Scope, f view.LocateFilter) (*view.Position, error) {
	return b.v.ViewLocate(b.c.as(ctx), scope, f)
}

func (b boundView) ViewEvents(ctx context.Context, scope annals.Scope, f view.EventsFilter) (*view.EventPage, error) {
	return b.v.ViewEvents(b.c.as(ctx), scope, f)
}

func (b boundView) ViewSearch(ctx context.Context, scope annals.Scope, f view.Filter) (*view.Page, error) {
	return b.v.ViewSearch(b.c.as(ctx), scope, f)
}

func (b boundView) ViewVersion(ctx context.Context, scope annals.Scope) (view.Version, bool, error) {
	return b.v.ViewVersion(b.c.as(ctx), scope)
}
