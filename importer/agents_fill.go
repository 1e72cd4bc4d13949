package importer

import (
	"context"
	"fmt"

	"github.com/annals-dev/annals"
)

// AgentStore gives chats imported before imported chats had agents their agent
// (Options.Agents): the chats it lists and the one change of an agent it allows
// (annals.AgentAdopter: only from none, only on the chat as read). cmd/ hands it the local store;
// an import through a server or a dry run has none, and such chats keep no agent.
type AgentStore interface {
	FindChats(ctx context.Context, filter annals.ChatFilter) ([]*annals.Chat, int, error)
	annals.AgentAdopter
}

// fillAgents gives every chat this importer's formats imported earlier without an agent the
// agent chatAgent gives a new one, once per Importer (a watch does it on its first run). A chat
// qualifies only when it is exactly the import's owner's (tenant and user, no agent), carries
// the format's `source` attribute and an import source of that format produced it, so a chat
// written by anything else is never touched. Under a key with an agent nothing is filled: the
// chats without one were not that agent's. It returns how many chats it gave an agent.
func (run *runState) fillAgents(ctx context.Context) (int, error) {
	im := run.im
	if im.opts.Agents == nil || im.opts.DryRun || im.agentsFilled || im.agentRefused.Load() || im.opts.AgentID != "" {
		return 0, nil
	}
	tenant := im.opts.TenantID
	if tenant == "" {
		tenant = "local"
	}
	filled := 0
	for _, f := range im.opts.Formats {
		if f.Name() == "annals" || readerAgents[f.Name()] {
			continue // the reader's own agent, or none, is the chat's
		}
		n, err := run.fillFormatAgents(ctx, f.Name(), annals.Owner{TenantID: tenant, UserID: im.opts.UserID})
		filled += n
		if err != nil {
			return filled, err
		}
	}
	im.agentsFilled = true
	return filled, nil
}

// fillFormatAgents is fillAgents for one format. Chats given their agent leave the filter, so
// the next page starts after the ones left alone.
func (run *runState) fillFormatAgents(ctx context.Context, format string, owner annals.Owner) (int, error) {
	im := run.im
	none := ""
	filter := annals.ChatFilter{Owner: owner, Agent: &none, IncludeArchived: true, Limit: annals.MaxListLimit,
		Attributes: map[string]annals.AttrMatch{"source": {Value: format}}}
	filled := 0
	for {
		chats, _, err := im.opts.Agents.FindChats(ctx, filter)
		if err != nil {
			return filled, fmt.Errorf("listing %s chats without an agent: %w", format, err)
		}
		for _, c := range chats {
			ok, err := run.importedChat(ctx, format, owner, c)
			if err != nil {
				return filled, err
			}
			if !ok {
				filter.Offset++
				continue
			}
			_, err = im.opts.Agents.AdoptAgent(ctx, c.Ref(), chatAgent(format, "", c))
			switch annals.ErrorCode(err) {
			case "":
				filled++
			case annals.ENOTFOUND:
				// Deleted, or given an agent, since it was listed: nothing to do.
			default:
				return filled, fmt.Errorf("giving chat %s its agent: %w", c.ID, err)
			}
		}
		if len(chats) < filter.Limit {
			return filled, nil
		}
	}
}

// importedChat reports whether c is a chat an import of format produced for exactly owner.
func (run *runState) importedChat(ctx context.Context, format string, owner annals.Owner, c *annals.Chat) (bool, error) {
	if c.AgentID != "" || c.TenantID != owner.TenantID || c.UserID != owner.UserID {
		return false, nil
	}
	srcs, err := run.im.store.FindImportSources(ctx, annals.ImportSourceFilter{Format: format, ChatID: c.ID})
	if err != nil {
		return false, fmt.Errorf("finding the sources of chat %s: %w", c.ID, err)
	}
	return len(srcs) > 0, nil
}
