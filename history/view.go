package history

import (
	"context"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/view"
)

// The read-only view (view.Service): each op resolves the scope from the caller's principal and
// hands the store a filter carrying that owner, whatever owner the caller's filter held. The
// store applies it inside SQL WHERE.

var _ view.Service = (*Service)(nil)

// ViewScope resolves the scope a view query asks for; see view.Service.
func (s *Service) ViewScope(ctx context.Context, scope annals.Scope) (annals.Scope, error) {
	res, err := Resolve(ctx, string(scope))
	if err != nil {
		return "", err
	}
	return res.Scope, nil
}

// viewOwner resolves scope into the owner a view op reads, refusing when the service has no
// view store.
func (s *Service) viewOwner(ctx context.Context, scope annals.Scope) (annals.Owner, error) {
	res, err := Resolve(ctx, string(scope))
	if err != nil {
		return annals.Owner{}, err
	}
	if s.view == nil {
		return annals.Owner{}, annals.Errorf(annals.ENOTIMPLEMENTED, "this history has no query view: its store does not answer the view (view.Store)")
	}
	return res.Owner, nil
}

// ViewAgents lists the agent nouns in scope; see view.Service.
func (s *Service) ViewAgents(ctx context.Context, scope annals.Scope, f view.AgentsFilter) (*view.Agents, error) {
	var err error
	if f.Owner, err = s.viewOwner(ctx, scope); err != nil {
		return nil, err
	}
	return s.view.ViewAgents(ctx, f)
}

// ViewSessions lists sessions in scope; see view.Service.
func (s *Service) ViewSessions(ctx context.Context, scope annals.Scope, f view.SessionsFilter) (*view.SessionList, error) {
	var err error
	if f.Owner, err = s.viewOwner(ctx, scope); err != nil {
		return nil, err
	}
	return s.view.ViewSessions(ctx, f)
}

// ViewTranscript pages one chat in scope; see view.Service.
func (s *Service) ViewTranscript(ctx context.Context, scope annals.Scope, f view.TranscriptFilter) (*view.Page, error) {
	var err error
	if f.Owner, err = s.viewOwner(ctx, scope); err != nil {
		return nil, err
	}
	return s.view.ViewTranscript(ctx, f)
}

// ViewConversation pages the entries in scope sharing a correlation id; see view.Service.
func (s *Service) ViewConversation(ctx context.Context, scope annals.Scope, f view.ConversationFilter) (*view.Page, error) {
	var err error
	if f.Owner, err = s.viewOwner(ctx, scope); err != nil {
		return nil, err
	}
	return s.view.ViewConversation(ctx, f)
}

// ViewToolCalls returns the calls of messages in scope; see view.Service.
func (s *Service) ViewToolCalls(ctx context.Context, scope annals.Scope, f view.ToolCallsFilter) (map[view.Ref][]view.Call, error) {
	var err error
	if f.Owner, err = s.viewOwner(ctx, scope); err != nil {
		return nil, err
	}
	return s.view.ViewToolCalls(ctx, f)
}

// ViewEvents pages the event entries in scope sharing a correlation id; see view.Service.
func (s *Service) ViewEvents(ctx context.Context, scope annals.Scope, f view.EventsFilter) (*view.EventPage, error) {
	var err error
	if f.Owner, err = s.viewOwner(ctx, scope); err != nil {
		return nil, err
	}
	return s.view.ViewEvents(ctx, f)
}

// ViewLocate finds the entry in scope carrying a source id; see view.Service.
func (s *Service) ViewLocate(ctx context.Context, scope annals.Scope, f view.LocateFilter) (*view.Position, error) {
	var err error
	if f.Owner, err = s.viewOwner(ctx, scope); err != nil {
		return nil, err
	}
	return s.view.ViewLocate(ctx, f)
}

// ViewSearch pages the entries in scope matching a filter; see view.Service.
func (s *Service) ViewSearch(ctx context.Context, scope annals.Scope, f view.Filter) (*view.Page, error) {
	var err error
	if f.Owner, err = s.viewOwner(ctx, scope); err != nil {
		return nil, err
	}
	return s.view.ViewSearch(ctx, f)
}

// ViewVersion tells the owner and scope a view query in scope reads and the store's generation;
// see view.Service. ok is false when the view store has no generation (view.Generations).
func (s *Service) ViewVersion(ctx context.Context, scope annals.Scope) (view.Version, bool, error) {
	res, err := Resolve(ctx, string(scope))
	if err != nil {
		return view.Version{}, false, err
	}
	g, ok := s.view.(view.Generations)
	if !ok {
		return view.Version{}, false, nil
	}
	gen, err := g.ViewGeneration(ctx)
	if err != nil {
		return view.Version{}, false, err
	}
	return view.Version{Key: string(res.Scope) + " " + res.Owner.String(), Generation: gen}, true, nil
}
