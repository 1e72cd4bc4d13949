package main

import (
	"context"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/httpapi"
)

// remoteReads is remote query mode's history for what both reads and writes — `annals mcp`,
// `annals browse` and the local-mode callers of `annals serve` (docs/REPLICATION.md, "Remote
// query mode"): its reads ask the remote collection with the remote's key, as the CLI's reads
// do, and never this database; its writes (capture, curation, recap, delete) go to the local
// history, which records them in the outbox and replicates them. It has no change feed of its
// own (no Watch), so a page over it polls.
type remoteReads struct {
	historyAPI // the local history: every write, and the embedding backfill
	remote     *httpapi.Client
}

func (r remoteReads) FindChats(ctx context.Context, p annals.ListParams) (*annals.ChatPage, error) {
	return r.remote.FindChats(ctx, p)
}

func (r remoteReads) SearchChats(ctx context.Context, p annals.SearchParams) (*annals.SearchPage, error) {
	return r.remote.SearchChats(ctx, p)
}

func (r remoteReads) FindRelated(ctx context.Context, p annals.RelatedParams) (*annals.RelatedPage, error) {
	return r.remote.FindRelated(ctx, p)
}

func (r remoteReads) GetChat(ctx context.Context, p annals.GetParams) (*annals.ChatView, error) {
	return r.remote.GetChat(ctx, p)
}

func (r remoteReads) FindChatRuns(ctx context.Context, sel annals.ChatSelector) ([]*annals.Run, error) {
	return r.remote.FindChatRuns(ctx, sel)
}

func (r remoteReads) ResumeChat(ctx context.Context, sel annals.ChatSelector) (*annals.ResumeHandle, error) {
	return r.remote.ResumeChat(ctx, sel)
}

func (r remoteReads) Usage(ctx context.Context, p annals.UsageParams) (*annals.UsageReport, error) {
	return r.remote.Usage(ctx, p)
}

// withRemoteReads returns local with its reads sent to the remote collection when the config
// has a remote block and the command was not asked for the local database (--local, --db);
// else local itself. remote is the endpoint asked ("" for local).
func (m *Main) withRemoteReads(c *common, local historyAPI) (h historyAPI, remote string, err error) {
	server, key, err := m.remoteQuery(c)
	if err != nil || server == "" {
		return local, "", err
	}
	client, err := httpapi.NewClient(server, key)
	if err != nil {
		return nil, "", err
	}
	return remoteReads{historyAPI: local, remote: client}, server, nil
}
