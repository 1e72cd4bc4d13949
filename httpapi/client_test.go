package httpapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/envelope"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/httpapi"
	"github.com/annals-dev/annals/ingest"
	"github.com/annals-dev/annals/queryview"
)

// sameJSON fails unless got and want encode to the same JSON.
func sameJSON(t *testing.T, what string, got, want any) {
	t.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		t.Errorf("%s over HTTP differs from the library:\n got %s\nwant %s", what, g, w)
	}
}

// Every client (HTTP, and Connect over each protocol) answers every read op exactly like
// history.Service called as the same principal: the same envelope dispatched to either
// (envelope.Dispatch, as every transport does) answers the same.
func TestClientReadOpsMatchTheLibrary(t *testing.T) {
	f := newTwoTenants(t)
	for _, r := range f.remotes(f.keyA) {
		t.Run(r.name, func(t *testing.T) { clientReadOpsMatchTheLibrary(t, f, r.c) })
	}
}

func clientReadOpsMatchTheLibrary(t *testing.T, f *twoTenants, c annals.HistoryService) {
	ctx := context.Background()
	as := annals.NewContextWithPrincipal(ctx, &annals.Principal{TenantID: "A", UserID: "ua1", Role: annals.RoleMember, Scopes: []annals.Scope{annals.ScopeUser, annals.ScopeTenant}})
	ctxN := 1
	for _, req := range []*envelope.Request{
		{Op: history.OpList, Scope: "tenant"},
		{Op: history.OpList, Limit: 1, Tag: "ops"},
		{Op: history.OpSearch, Query: "reactor pressure"},
		{Op: history.OpSearch, Query: "pressure", Mode: envelope.ModeEntries},
		{Op: history.OpGet, SessionID: "a1"},
		{Op: history.OpGet, SessionID: "a1", AroundSeq: 2, Context: &ctxN},
		{Op: history.OpGet, SessionID: "a1", Format: history.FormatMarkdown},
		{Op: history.OpGet, SessionID: "a1", Format: history.FormatConversation},
		{Op: history.OpResume, SessionID: "a1"},
		{Op: history.OpRelated, Query: "reactor"},
	} {
		got, err := envelope.Dispatch(ctx, c, req)
		if err != nil {
			t.Fatalf("%s: %v", req.Op, err)
		}
		want, err := envelope.Dispatch(as, f.svc, req)
		if err != nil {
			t.Fatal(err)
		}
		// Search scores blend in recency, which moves between the two calls.
		for _, a := range []any{got, want} {
			if sr, ok := a.(*envelope.SearchResponse); ok {
				for i := range sr.Chats {
					sr.Chats[i].Score = 0
				}
				for i := range sr.Entries {
					sr.Entries[i].Score = 0
				}
			}
		}
		if reflect.TypeOf(got) != reflect.TypeOf(want) {
			t.Errorf("%s: client answered %T, library %T", req.Op, got, want)
		}
		sameJSON(t, req.Op, got, want)
	}
	// Errors keep their code and message.
	_, err := c.GetChat(ctx, annals.GetParams{Chat: annals.ChatSelector{ID: "b1"}})
	if annals.ErrorCode(err) != annals.ENOTFOUND || annals.ErrorMessage(err) != `chat "b1" not found` {
		t.Errorf("get b1: %v (%s)", err, annals.ErrorCode(err))
	}
	_, err = c.FindChats(ctx, annals.ListParams{Scope: "global"})
	if annals.ErrorCode(err) != annals.EFORBIDDEN {
		t.Errorf("global as member: %v", err)
	}
	_, err = envelope.Dispatch(ctx, c, &envelope.Request{Op: "nope"})
	if annals.ErrorCode(err) != annals.EINVALID {
		t.Errorf("unknown op: %v", err)
	}
}

func TestClientWriteOpsRoundTrip(t *testing.T) {
	for _, r := range newTwoTenants(t).remotes("") {
		t.Run(r.name, func(t *testing.T) {
			f := newTwoTenants(t)
			clientWriteOpsRoundTrip(t, f, f.remoteNamed(r.name, f.keyA))
		})
	}
}

func clientWriteOpsRoundTrip(t *testing.T, f *twoTenants, c annals.HistoryService) {
	ctx := context.Background()
	title := "Valve check"
	a1 := annals.ChatSelector{ID: "a1"}
	if r, err := c.RenameChat(ctx, a1, title); err != nil || r.Title != title {
		t.Fatalf("rename: %+v, %v", r, err)
	}
	tags := []string{"x"}
	desc := "about valves"
	if r, err := c.AnnotateChat(ctx, a1, annals.Annotation{Tags: &tags, Description: &desc}); err != nil || r.Description != desc {
		t.Fatalf("annotate: %+v, %v", r, err)
	}
	if r, err := c.PinChat(ctx, a1, true); err != nil || !r.Pinned {
		t.Fatalf("pin: %+v, %v", r, err)
	}
	if r, err := c.ArchiveChat(ctx, a1, true); err != nil || r.ArchivedAt == nil {
		t.Fatalf("archive: %+v, %v", r, err)
	}
	if r, err := c.RecapChat(ctx, a1); err != nil || r.Summary == "" {
		t.Fatalf("recap: %+v, %v", r, err)
	}
	if r, err := c.FindRelated(ctx, annals.RelatedParams{ChatID: "a1", IncludeArchived: true}); err != nil || r.Model == "" {
		t.Fatalf("related: %+v, %v", r, err)
	}
	stored, _ := f.db.FindChatByID(ctx, "a1")
	if stored.Title != title || !stored.Pinned || stored.ArchivedAt == nil || stored.Summary == "" || stored.Description != desc {
		t.Errorf("stored chat %+v", stored)
	}
	if err := c.DeleteChat(ctx, a1); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if _, err := f.db.FindChatByID(ctx, "a1"); annals.ErrorCode(err) != annals.ENOTFOUND {
		t.Errorf("deleted chat still there: %v", err)
	}
}

// Every client is an annals.CaptureStore: the single-op functions over it, and Capture with batch
// error indexes mapped back to the caller's ops; the HTTP client splits a batch to fit the
// server's body limit.
func TestClientIsACaptureStore(t *testing.T) {
	for _, r := range newTwoTenants(t).remotes("") {
		t.Run(r.name, func(t *testing.T) {
			f := newTwoTenants(t)
			clientIsACaptureStore(t, f, f.remoteNamed(r.name, f.keyA))
		})
	}
}

func clientIsACaptureStore(t *testing.T, f *twoTenants, c annals.HistoryService) {
	ctx := context.Background()
	created := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	chat, err := annals.CreateChat(ctx, c, &annals.Chat{ID: "k1", TenantID: "ignored", Title: "client chat", Tags: []string{"t"}, CreatedAt: created, Attributes: annals.Attributes{"source": "go"}})
	if err != nil {
		t.Fatal(err)
	}
	if chat.TenantID != "A" || chat.UserID != "ua1" || !chat.CreatedAt.Equal(created) || chat.Attributes["source"] != "go" {
		t.Errorf("created %+v", chat)
	}
	at := created.Add(time.Minute)
	ar, err := annals.AppendEntries(ctx, c, "k1", []*annals.Entry{
		{ID: "e1", Kind: annals.KindUser, Text: "hello", Time: at, SourceIDs: []string{"s1"}, Metadata: json.RawMessage(`{"a":1}`)},
		{ID: "e2", Kind: annals.KindTool, Time: at, Tool: &annals.ToolCall{Name: "Bash", Arguments: json.RawMessage(`{"cmd":"ls"}`), Result: "ok", Outcome: annals.OutcomeSucceeded}},
	})

	if err != nil || ar.Appended != 2 || ar.LastSeq != 2 {
		t.Fatalf("append: %+v, %v", ar, err)
	}
	entries, _ := f.db.FindEntries(ctx, annals.EntryFilter{ChatID: "k1"})
	if len(entries) != 2 || !entries[0].Time.Equal(at) || string(entries[0].Metadata) != `{"a":1}` || entries[1].Tool.Outcome != annals.OutcomeSucceeded {
		t.Errorf("stored entries %+v", entries)
	}
	run, err := annals.RecordRun(ctx, c, &annals.Run{ID: "k1/r1", ChatID: "k1", Status: annals.StatusRunning})
	if err != nil || run.StartedAt.IsZero() {
		t.Fatalf("run: %+v, %v", run, err)
	}
	if runs, err := c.FindChatRuns(ctx, annals.ChatSelector{ID: "k1"}); err != nil || len(runs) != 1 {
		t.Fatalf("runs: %+v, %v", runs, err)
	}
	tr, err := annals.TruncateChat(ctx, c, "k1", annals.TruncatePoint{SourceID: "s1"})
	if err != nil || tr.Removed != 2 {
		t.Fatalf("truncate: %+v, %v", tr, err)
	}
	if _, err := annals.AppendEntries(ctx, c, "b1", []*annals.Entry{{ID: "x", Kind: annals.KindUser}}); annals.ErrorCode(err) != annals.ENOTFOUND {
		t.Errorf("append to another tenant: %v", err)
	}

	// Capture: over HTTP, a batch split into several requests by a tiny MaxBatchBytes.
	if hc, ok := c.(*httpapi.Client); ok {
		hc.MaxBatchBytes = 600
	}
	ops := []annals.CaptureOp{{Chat: &annals.Chat{ID: "k2", TenantID: "A"}}}
	for i := range 8 {
		ops = append(ops, annals.CaptureOp{Append: &annals.AppendOp{ChatID: "k2", Entries: []*annals.Entry{{ID: "e" + string(rune('a'+i)), Kind: annals.KindUser, Text: strings.Repeat("w ", 60), Time: at}}}})
	}
	res, err := c.Capture(ctx, ops)
	if err != nil || res.ChatsCreated != 1 || res.EntriesAppended != 8 {
		t.Fatalf("capture: %+v, %v", res, err)
	}
	ops = append(ops, annals.CaptureOp{Run: &annals.Run{ID: "r", ChatID: "missing", Status: annals.StatusRunning}})
	_, err = c.Capture(ctx, ops)
	var be *annals.BatchError
	if !errors.As(err, &be) || be.Index != len(ops)-1 || annals.ErrorCode(err) != annals.ENOTFOUND {
		t.Errorf("capture error: %v (index %v)", err, be)
	}

	// ingest.Ingest runs unchanged over the client.
	rep, err := ingest.Ingest(ctx, c, strings.NewReader("{\"type\":\"chat\",\"id\":\"k3\"}\n{\"type\":\"entry\",\"chat_id\":\"k3\",\"id\":\"e1\",\"kind\":\"user\",\"text\":\"via ingest\"}\n"), ingest.Options{})
	if err != nil || rep.ChatsCreated != 1 || rep.EntriesAppended != 1 {
		t.Fatalf("ingest over the client: %+v, %v", rep, err)
	}
	if hc, ok := c.(*httpapi.Client); ok {
		if rep, err := hc.Ingest(ctx, strings.NewReader(`{"type":"chat","id":"k4"}`)); err != nil || rep.ChatsCreated != 1 {
			t.Fatalf("client Ingest: %+v, %v", rep, err)
		}
	}
}

func TestClientQueryViewExportAndHealth(t *testing.T) {
	f := newTwoTenants(t)
	c := f.client(f.keyA)
	ctx := context.Background()
	as := annals.NewContextWithPrincipal(ctx, &annals.Principal{TenantID: "A", UserID: "ua1", Role: annals.RoleMember, Scopes: []annals.Scope{annals.ScopeUser, annals.ScopeTenant}})
	view := queryview.New(f.svc)
	for _, req := range []any{
		&queryview.AgentsRequest{},
		&queryview.SessionsRequest{Limit: 5},
		&queryview.TranscriptRequest{Session: "a1", Limit: 2},
		&queryview.ConversationRequest{Correlation: "corr-1"},
		&queryview.SearchRequest{Filter: &queryview.Filter{Text: "reactor"}},
	} {
		got, err := c.Query(ctx, req)
		if err != nil {
			t.Fatalf("%T: %v", req, err)
		}
		var m map[string]any
		b, _ := json.Marshal(req)
		json.Unmarshal(b, &m)
		m["kind"] = kindOf(got)
		b, _ = json.Marshal(m)
		want, err := view.Query(as, strings.NewReader(string(b)))
		if err != nil {
			t.Fatal(err)
		}
		sameJSON(t, kindOf(got), got, want)
	}
	// Another tenant's session is, as one that does not exist, an empty page.
	if got, err := c.Query(ctx, &queryview.TranscriptRequest{Session: "b1"}); err != nil || len(got.(*queryview.TranscriptAnswer).Messages) != 0 {
		t.Errorf("transcript of b1: %+v %v", got, err)
	}
	md, err := c.Export(ctx, "a1", "markdown", "")
	if err != nil || !strings.Contains(string(md), "# Reactor pressure review") {
		t.Fatalf("export: %v %s", err, md)
	}
	h, err := c.Health(ctx)
	if err != nil || !h.OK {
		t.Fatalf("health: %+v %v", h, err)
	}
}

// kindOf returns the kind of an answer type, to build the same request for the library.
func kindOf(answer any) string {
	k := map[string]string{
		"*queryview.AgentsAnswer": "agents", "*queryview.SessionsAnswer": "sessions", "*queryview.TranscriptAnswer": "transcript",
		"*queryview.ConversationAnswer": "conversation", "*queryview.SearchAnswer": "search",
	}[reflect.TypeOf(answer).String()]
	return k
}

func TestClientErrors(t *testing.T) {
	if _, err := httpapi.NewClient("localhost:7457", ""); annals.ErrorCode(err) != annals.EINVALID {
		t.Errorf("a URL without a scheme: %v", err)
	}
	if _, err := httpapi.NewClient("http://127.0.0.1:1", "sk-123"); annals.ErrorCode(err) != annals.EINVALID {
		t.Errorf("a malformed key: %v", err)
	}
	c, _ := httpapi.NewClient("http://127.0.0.1:1", "")
	if _, err := c.FindChats(context.Background(), annals.ListParams{}); annals.ErrorCode(err) != annals.EUNAVAILABLE || !strings.Contains(annals.ErrorMessage(err), "cannot reach") {
		t.Errorf("unreachable server: %v", err)
	}
	f := newTwoTenants(t)
	unknown, _ := annals.NewKeySecret()
	for _, r := range f.remotes(unknown) {
		if _, err := r.c.FindChats(context.Background(), annals.ListParams{}); annals.ErrorCode(err) != httpapi.CodeUnauthorized {
			t.Errorf("%s: unknown key: %v", r.name, err)
		}
	}
}

// The client as an annals.HistoryService answers every typed call like history.Service does,
// snippets with the typed marks included, so a program written against the root interface runs
// unchanged against a server.
func TestClientTypedCallsMatchTheLibrary(t *testing.T) {
	f := newTwoTenants(t)
	for _, r := range f.remotes(f.keyA) {
		t.Run(r.name, func(t *testing.T) { clientTypedCallsMatchTheLibrary(t, f, r.c) })
	}
}

func clientTypedCallsMatchTheLibrary(t *testing.T, f *twoTenants, remote annals.HistoryService) {
	ctx := context.Background()
	as := annals.NewContextWithPrincipal(ctx, &annals.Principal{TenantID: "A", UserID: "ua1", Role: annals.RoleMember, Scopes: []annals.Scope{annals.ScopeUser, annals.ScopeTenant}})
	local := annals.HistoryService(f.svc)
	from := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	one := 1
	calls := []struct {
		name string
		run  func(ctx context.Context, s annals.HistoryService) (any, error)
	}{
		{"FindChats", func(ctx context.Context, s annals.HistoryService) (any, error) {
			return s.FindChats(ctx, annals.ListParams{Scope: annals.ScopeTenant, Filter: annals.ChatQuery{From: &from, Tag: "ops"}, Page: annals.PageParams{Limit: 5}})
		}},
		{"SearchChats", func(ctx context.Context, s annals.HistoryService) (any, error) {
			p, err := s.SearchChats(ctx, annals.SearchParams{Query: "reactor pressure"})
			if p != nil {
				for i := range p.Chats {
					p.Chats[i].Score = 0 // recency moves between the two calls
				}
			}
			return p, err
		}},
		{"SearchChats hybrid", func(ctx context.Context, s annals.HistoryService) (any, error) {
			p, err := s.SearchChats(ctx, annals.SearchParams{Query: "reactor", Rank: "hybrid"})
			if p != nil {
				for i := range p.Chats {
					p.Chats[i].Score = 0
				}
			}
			return p, err
		}},
		{"GetChat window", func(ctx context.Context, s annals.HistoryService) (any, error) {
			return s.GetChat(ctx, annals.GetParams{Chat: annals.ChatSelector{ID: "a1"}, AroundSeq: 2, Context: &one})
		}},
		{"Usage", func(ctx context.Context, s annals.HistoryService) (any, error) {
			return s.Usage(ctx, annals.UsageParams{Scope: annals.ScopeTenant, From: &from, Zone: "Europe/Paris", Top: 3})
		}},
		{"FindChatRuns", func(ctx context.Context, s annals.HistoryService) (any, error) {
			return s.FindChatRuns(ctx, annals.ChatSelector{ID: "a1"})
		}},
		{"ResumeChat", func(ctx context.Context, s annals.HistoryService) (any, error) {
			return s.ResumeChat(ctx, annals.ChatSelector{ID: "a1"})
		}},
		{"Usage", func(ctx context.Context, s annals.HistoryService) (any, error) {
			return s.Usage(ctx, annals.UsageParams{Scope: annals.ScopeTenant, From: &from, Zone: "Europe/Paris", Top: 3})
		}},
	}
	for _, c := range calls {
		got, err := c.run(ctx, remote)
		if err != nil {
			t.Fatalf("%s over HTTP: %v", c.name, err)
		}
		want, err := c.run(as, local)
		if err != nil {
			t.Fatalf("%s locally: %v", c.name, err)
		}
		sameJSON(t, c.name, got, want)
	}
	if p, _ := remote.SearchChats(ctx, annals.SearchParams{Query: "reactor"}); len(p.Chats) == 0 || !strings.Contains(p.Chats[0].Snippets[0].Text, annals.SnippetMarkOpen) {
		t.Errorf("typed search over HTTP lost the typed marks: %+v", p)
	}
	// Errors keep their code across the wire.
	_, err := remote.RenameChat(ctx, annals.ChatSelector{ID: "b1"}, "mine now")
	if annals.ErrorCode(err) != annals.ENOTFOUND {
		t.Errorf("renaming another tenant's chat over HTTP: %v, want not_found", err)
	}
	if c, err := remote.RenameChat(ctx, annals.ChatSelector{ID: "a1"}, "renamed remotely"); err != nil || c.Title != "renamed remotely" {
		t.Errorf("RenameChat over HTTP: %+v, %v", c, err)
	}
}
