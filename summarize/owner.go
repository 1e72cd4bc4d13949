package summarize

import (
	"context"
	"strings"

	"github.com/annals-dev/annals"
)

// Choice is the summarizer of one tenant's chats (Agent empty) or of one agent's chats within a
// tenant. A nil Summarizer turns recaps off for those chats (recap refuses them), which lets an
// operator keep a tenant off the default provider and its key.
type Choice struct {
	Tenant     string
	Agent      string
	Summarizer annals.Summarizer
}

type agentKey struct{ tenant, agent string }

// ByOwner chooses the summarizer of each chat by its owner, so that a recap of one tenant's
// chat is made with that tenant's provider and key, never another tenant's: the agent's choice
// within the chat's tenant wins, then the tenant's, then the default. Agents are chosen within a
// tenant only (an agent id names an agent of one tenant), so no configuration of one tenant can
// reach another tenant's chats. It is the one place the choice is made: recap and the
// background digest both summarise through it (history.Service holds it as its Summarizer).
type ByOwner struct {
	def     annals.Summarizer
	tenants map[string]annals.Summarizer
	agents  map[agentKey]annals.Summarizer
}

var _ annals.TitledSummarizer = (*ByOwner)(nil)

// NewByOwner returns the chooser over def (nil: chats of no listed owner cannot be recapped).
// Errors: invalid (a choice without a tenant, or two choices for one owner).
func NewByOwner(def annals.Summarizer, choices ...Choice) (*ByOwner, error) {
	r := &ByOwner{def: def, tenants: map[string]annals.Summarizer{}, agents: map[agentKey]annals.Summarizer{}}
	for _, c := range choices {
		if strings.TrimSpace(c.Tenant) == "" {
			return nil, annals.Errorf(annals.EINVALID, "a summarizer choice needs a tenant (agent %q)", c.Agent)
		}
		if c.Agent == "" {
			if _, dup := r.tenants[c.Tenant]; dup {
				return nil, annals.Errorf(annals.EINVALID, "tenant %q has two summarizers", c.Tenant)
			}
			r.tenants[c.Tenant] = c.Summarizer
			continue
		}
		k := agentKey{c.Tenant, c.Agent}
		if _, dup := r.agents[k]; dup {
			return nil, annals.Errorf(annals.EINVALID, "agent %q of tenant %q has two summarizers", c.Agent, c.Tenant)
		}
		r.agents[k] = c.Summarizer
	}
	return r, nil
}

// For returns the summarizer of the chat's owner: its agent's within its tenant, else its
// tenant's, else the default. nil means recaps are off for this chat.
func (r *ByOwner) For(chat *annals.Chat) annals.Summarizer {
	if chat == nil {
		return r.def
	}
	if chat.AgentID != "" {
		if s, ok := r.agents[agentKey{chat.TenantID, chat.AgentID}]; ok {
			return s
		}
	}
	if s, ok := r.tenants[chat.TenantID]; ok {
		return s
	}
	return r.def
}

// Summarize summarises with the chat's owner's summarizer.
// Errors: unavailable (none is configured for this chat's owner, or the provider failed).
func (r *ByOwner) Summarize(ctx context.Context, chat *annals.Chat, entries []*annals.Entry) (string, error) {
	s, _, err := r.SummarizeMetered(ctx, chat, entries)
	return s, err
}

// SummarizeMetered is Summarize plus what the chosen provider spent (nothing for an offline one).
func (r *ByOwner) SummarizeMetered(ctx context.Context, chat *annals.Chat, entries []*annals.Entry) (string, annals.SummaryUsage, error) {
	s, err := r.chosen(chat)
	if err != nil {
		return "", annals.SummaryUsage{}, err
	}
	if m, ok := s.(annals.MeteredSummarizer); ok {
		return m.SummarizeMetered(ctx, chat, entries)
	}
	out, err := s.Summarize(ctx, chat, entries)
	return out, annals.SummaryUsage{}, err
}

// SummarizeTitled writes a title and a summary with the chat's owner's summarizer; one that
// cannot title (the offline one) gives the summary and no title (see Titled).
func (r *ByOwner) SummarizeTitled(ctx context.Context, chat *annals.Chat, entries []*annals.Entry) (annals.TitledSummary, annals.SummaryUsage, error) {
	s, err := r.chosen(chat)
	if err != nil {
		return annals.TitledSummary{}, annals.SummaryUsage{}, err
	}
	return Titled(ctx, s, chat, entries)
}

func (r *ByOwner) chosen(chat *annals.Chat) (annals.Summarizer, error) {
	if s := r.For(chat); s != nil {
		return s, nil
	}
	return nil, annals.Errorf(annals.EUNAVAILABLE, "recap is turned off for this chat's tenant or agent (its summarizer is provider: none in the annals config)")
}
