package main

import (
	"context"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/httpapi"
)

// Client mode: `annals --server URL --key KEY <command>` (or ANNALS_SERVER and ANNALS_KEY) runs
// a command against an annals server instead of a local database. The history commands (list,
// search, show, export, rename, tag, pin, archive, recap, related, delete) and ingest behave as
// they do locally; the server decides who the caller is from the key. Commands that need the
// database itself (serve, keys, redact --rescan, related --backfill, bench) refuse or ignore it.

// historyAPI is what commands call for history ops: *history.Service locally, the HTTP client
// against a server.
type historyAPI interface {
	Do(ctx context.Context, req *history.Request) (any, error)
	List(ctx context.Context, req *history.Request) (*history.ListResponse, error)
	Search(ctx context.Context, req *history.Request) (*history.SearchResponse, error)
	Related(ctx context.Context, req *history.Request) (*history.RelatedResponse, error)
	Get(ctx context.Context, req *history.Request) (*history.GetResponse, error)
	Rename(ctx context.Context, req *history.Request) (*history.ChatResponse, error)
	Annotate(ctx context.Context, req *history.Request) (*history.ChatResponse, error)
	Pin(ctx context.Context, req *history.Request) (*history.ChatResponse, error)
	Archive(ctx context.Context, req *history.Request) (*history.ChatResponse, error)
	Recap(ctx context.Context, req *history.Request) (*history.RecapResponse, error)
	Resume(ctx context.Context, req *history.Request) (*history.ResumeResponse, error)
	Delete(ctx context.Context, req *history.Request) (*history.DeleteResponse, error)
	Backfill(ctx context.Context, progress func(history.BackfillProgress)) (history.BackfillProgress, error)
}

var _ historyAPI = (*history.Service)(nil)

// takeGlobalFlags removes the leading --server URL and --key KEY (also --server=URL) from args.
// They become the values of ANNALS_SERVER and ANNALS_KEY for this run, so every command sees
// one source of truth.
func (m *Main) takeGlobalFlags(args []string) ([]string, error) {
	set := map[string]string{}
	for {
		if len(args) == 0 {
			if len(set) > 0 {
				return nil, usagef("no command given after the global flags")
			}
			return args, nil
		}
		a := args[0]
		var name, value string
		switch {
		case a == "--server" || a == "-server" || a == "--key" || a == "-key":
			if len(args) < 2 {
				return nil, usagef("%s needs a value", a)
			}
			name, value, args = strings.TrimLeft(a, "-"), args[1], args[2:]
		case strings.HasPrefix(a, "--server=") || strings.HasPrefix(a, "--key="):
			name, value, _ = strings.Cut(strings.TrimLeft(a, "-"), "=")
			args = args[1:]
		default:
			if len(set) > 0 {
				getenv := m.Getenv
				m.Getenv = func(k string) string {
					if v, ok := set[k]; ok {
						return v
					}
					return getenv(k)
				}
			}
			return args, nil
		}
		set["ANNALS_"+strings.ToUpper(name)] = value
	}
}

// openRemote builds the app over the HTTP client when a server is configured (--server or
// ANNALS_SERVER) and the command may run remotely. ok is false when the command should open
// the local database.
func (m *Main) openRemote(ctx context.Context, c *common) (a *app, ok bool, err error) {
	server := m.Getenv("ANNALS_SERVER")
	if server == "" || c.local {
		return nil, false, nil
	}
	if *c.db != "" {
		return nil, true, usagef("--db and --server both given: a command runs against a local database or a server, not both")
	}
	cfg, err := m.loadConfig(*c.config)
	if err != nil {
		return nil, true, err
	}
	client, err := httpapi.NewClient(server, m.Getenv("ANNALS_KEY"))
	if err != nil {
		return nil, true, err
	}
	rs := &remoteStore{client: client}
	return &app{
		cfg:     cfg,
		store:   rs,
		capture: client,
		svc:     remoteService{client},
		ctx:     ctx,
	}, true, nil
}

// remoteService is the client plus the refusal of what only a local database can do.
type remoteService struct{ *httpapi.Client }

func (remoteService) Backfill(context.Context, func(history.BackfillProgress)) (history.BackfillProgress, error) {
	return history.BackfillProgress{}, needsLocal("related --backfill")
}

func needsLocal(what string) error {
	return annals.Errorf(annals.EINVALID, "%s needs a local database; it is not available through --server (run it on the server's machine with --db)", what)
}

// remoteStore stands in for the store in client mode. Commands reach the server through the
// history ops and the capture methods; of the store's own methods only what a server exposes
// (runs, chats by id, capture) works, and the rest say they need a local database.
type remoteStore struct{ client *httpapi.Client }

var (
	_ annals.Store     = (*remoteStore)(nil)
	_ annals.Rescanner = (*remoteStore)(nil)
)

func (s *remoteStore) Close() error { return nil }

func (s *remoteStore) Capture(ctx context.Context, ops []annals.CaptureOp) (*annals.CaptureResult, error) {
	return s.client.Capture(ctx, ops)
}
func (s *remoteStore) CreateChat(ctx context.Context, c *annals.Chat) (*annals.Chat, error) {
	return s.client.CreateChat(ctx, c)
}
func (s *remoteStore) AppendEntries(ctx context.Context, id string, es []*annals.Entry) (*annals.AppendResult, error) {
	return s.client.AppendEntries(ctx, id, es)
}
func (s *remoteStore) TruncateChat(ctx context.Context, id string, p annals.TruncatePoint) (*annals.TruncateResult, error) {
	return s.client.TruncateChat(ctx, id, p)
}
func (s *remoteStore) RecordRun(ctx context.Context, r *annals.Run) (*annals.Run, error) {
	return s.client.RecordRun(ctx, r)
}

// FindRuns reads the runs of a chat in the caller's scope (show prints them).
func (s *remoteStore) FindRuns(ctx context.Context, id string) ([]*annals.Run, error) {
	return s.client.Runs(ctx, id, "")
}

// FindChatByID reads a chat through the get op, so it is scoped like every remote read.
func (s *remoteStore) FindChatByID(ctx context.Context, id string) (*annals.Chat, error) {
	res, err := s.client.Get(ctx, &history.Request{SessionID: id, Limit: 1})
	if err != nil {
		return nil, err
	}
	return res.Chat, nil
}

func (s *remoteStore) Rescan(context.Context, annals.Redactor, func(annals.RescanReport)) (*annals.RescanReport, error) {
	return nil, needsLocal("redact --rescan")
}

func (s *remoteStore) FindChats(context.Context, annals.ChatFilter) ([]*annals.Chat, int, error) {
	return nil, 0, needsLocal("reading the store directly")
}
func (s *remoteStore) FindEntries(context.Context, annals.EntryFilter) ([]*annals.Entry, error) {
	return nil, needsLocal("reading the store directly")
}
func (s *remoteStore) UpdateChat(context.Context, annals.ChatRef, annals.ChatUpdate) (*annals.Chat, error) {
	return nil, needsLocal("writing the store directly")
}
func (s *remoteStore) DeleteChat(context.Context, annals.ChatRef) error {
	return needsLocal("writing the store directly")
}
func (s *remoteStore) MatchEntries(context.Context, annals.TextMatch) ([]annals.EntryRef, error) {
	return nil, needsLocal("reading the store directly")
}
func (s *remoteStore) MatchChats(context.Context, annals.TextMatch) ([]string, error) {
	return nil, needsLocal("reading the store directly")
}
func (s *remoteStore) SearchChats(context.Context, annals.SearchFilter) ([]annals.ChatHit, int, error) {
	return nil, 0, needsLocal("reading the store directly")
}
func (s *remoteStore) SearchEntries(context.Context, annals.SearchFilter) ([]annals.EntryHit, int, error) {
	return nil, 0, needsLocal("reading the store directly")
}
func (s *remoteStore) UpsertEmbedding(context.Context, string, string, []float32) error {
	return needsLocal("writing embeddings")
}
func (s *remoteStore) FindEmbeddings(context.Context, annals.EmbeddingFilter) ([]annals.ChatVector, error) {
	return nil, needsLocal("reading embeddings")
}
func (s *remoteStore) FindChatsWithoutEmbedding(context.Context, string, int) ([]*annals.Chat, error) {
	return nil, needsLocal("reading embeddings")
}
func (s *remoteStore) ViewAgents(context.Context, annals.ViewAgentsFilter) (*annals.ViewAgents, error) {
	return nil, needsLocal("reading the store directly")
}
func (s *remoteStore) ViewSessions(context.Context, annals.ViewSessionsFilter) (*annals.ViewSessionList, error) {
	return nil, needsLocal("reading the store directly")
}
func (s *remoteStore) ViewTranscript(context.Context, annals.ViewTranscriptFilter) (*annals.ViewPage, error) {
	return nil, needsLocal("reading the store directly")
}
func (s *remoteStore) ViewConversation(context.Context, annals.ViewConversationFilter) (*annals.ViewPage, error) {
	return nil, needsLocal("reading the store directly")
}
func (s *remoteStore) ViewSearch(context.Context, annals.ViewFilter) (*annals.ViewPage, error) {
	return nil, needsLocal("reading the store directly")
}
