package httpapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/httpapi"
)

// fakeService is a history service with no database: it records the typed calls the routes
// make and answers what the test set. It proves routing, decoding and error mapping alone.
type fakeService struct {
	mu    sync.Mutex
	calls []string
	list  annals.ListParams
	get   annals.GetParams
	sel   annals.ChatSelector
	title string
	err   error
}

func (f *fakeService) record(name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, name)
	return f.err
}

func (f *fakeService) FindChats(_ context.Context, p annals.ListParams) (*annals.ChatPage, error) {
	f.list = p
	if err := f.record("FindChats"); err != nil {
		return nil, err
	}
	return &annals.ChatPage{Chats: []*annals.Chat{{ID: "fake-1", TenantID: "t"}}, Total: 1, Limit: p.Page.Limit, Scope: "tenant"}, nil
}
func (f *fakeService) SearchChats(_ context.Context, p annals.SearchParams) (*annals.SearchPage, error) {
	if err := f.record("SearchChats"); err != nil {
		return nil, err
	}
	text := "see " + annals.SnippetMarkOpen + "needle" + annals.SnippetMarkClose + " <b>here</b>"
	return &annals.SearchPage{Chats: []annals.ChatHit{{Chat: &annals.Chat{ID: "fake-1"}, Snippets: []annals.Snippet{{Seq: 1, Text: text}}}}, Total: 1}, nil
}
func (f *fakeService) FindRelated(context.Context, annals.RelatedParams) (*annals.RelatedPage, error) {
	return nil, f.record("FindRelated")
}
func (f *fakeService) GetChat(_ context.Context, p annals.GetParams) (*annals.ChatView, error) {
	f.get = p
	if err := f.record("GetChat"); err != nil {
		return nil, err
	}
	return &annals.ChatView{Chat: &annals.Chat{ID: p.Chat.ID}, Format: string(p.Format), Markdown: "# md"}, nil
}
func (f *fakeService) FindChatRuns(_ context.Context, c annals.ChatSelector) ([]*annals.Run, error) {
	f.sel = c
	return []*annals.Run{}, f.record("FindChatRuns")
}
func (f *fakeService) Usage(context.Context, annals.UsageParams) (*annals.UsageReport, error) {
	return nil, f.record("Usage")
}
func (f *fakeService) RenameChat(_ context.Context, c annals.ChatSelector, title string) (*annals.Chat, error) {
	f.sel, f.title = c, title
	if err := f.record("RenameChat"); err != nil {
		return nil, err
	}
	return &annals.Chat{ID: c.ID, Title: title}, nil
}
func (f *fakeService) AnnotateChat(context.Context, annals.ChatSelector, annals.Annotation) (*annals.Chat, error) {
	return nil, f.record("AnnotateChat")
}
func (f *fakeService) PinChat(context.Context, annals.ChatSelector, bool) (*annals.Chat, error) {
	return nil, f.record("PinChat")
}
func (f *fakeService) ArchiveChat(context.Context, annals.ChatSelector, bool) (*annals.Chat, error) {
	return nil, f.record("ArchiveChat")
}
func (f *fakeService) RecapChat(context.Context, annals.ChatSelector) (*annals.Recap, error) {
	return nil, f.record("RecapChat")
}
func (f *fakeService) ResumeChat(context.Context, annals.ChatSelector) (*annals.ResumeHandle, error) {
	return nil, f.record("ResumeChat")
}
func (f *fakeService) DeleteChat(_ context.Context, c annals.ChatSelector) error {
	f.sel = c
	return f.record("DeleteChat")
}
func (f *fakeService) Capture(context.Context, []annals.CaptureOp) (*annals.CaptureResult, error) {
	return &annals.CaptureResult{ChatsCreated: 1}, f.record("Capture")
}

func startFake(t *testing.T, f *fakeService) string {
	t.Helper()
	srv := httpapi.New(httpapi.Config{Addr: "127.0.0.1:0", Service: f})
	if err := srv.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv.URL()
}

func postFake(t *testing.T, url, body string) (int, string) {
	t.Helper()
	res, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

func TestRoutesDecodeIntoTheTypedServiceCalls(t *testing.T) {
	f := &fakeService{}
	url := startFake(t, f)
	status, body := postFake(t, url+"/v1/history", `{"op":"list","scope":"tenant","status":"failed","from":"2026-01-02T03:04:05Z","tag":"ops","limit":5}`)
	if status != http.StatusOK || !strings.Contains(body, `"fake-1"`) {
		t.Fatalf("list: %d %s", status, body)
	}
	from := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if p := f.list; p.Scope != annals.ScopeTenant || p.Filter.Status == nil || *p.Filter.Status != annals.StatusFailed ||
		p.Filter.From == nil || !p.Filter.From.Equal(from) || p.Filter.Tag != "ops" || p.Page.Limit != 5 {
		t.Errorf("list decoded into %+v", p)
	}
	if status, body := postFake(t, url+"/v1/_history", `{"op":"rename","session_id":"c9","title":"new"}`); status != http.StatusOK || f.sel.ID != "c9" || f.title != "new" || !strings.Contains(body, `"title":"new"`) {
		t.Errorf("rename through the alias: %d %s, selector %+v, title %q", status, body, f.sel, f.title)
	}
	// Snippet marks are rendered by the envelope, HTML-escaped for HTML marks.
	_, body = postFake(t, url+"/v1/history", `{"op":"search","query":"needle","mark_open":"<em>","mark_close":"</em>"}`)
	var page annals.SearchPage
	if err := json.Unmarshal([]byte(body), &page); err != nil || len(page.Chats) != 1 || page.Chats[0].Snippets[0].Text != `see <em>needle</em> &lt;b&gt;here&lt;/b&gt;` {
		t.Errorf("search snippet: %s", body)
	}
	res, err := http.Get(url + "/v1/sessions/c7/export?format=markdown&scope=user")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK || f.get.Chat != (annals.ChatSelector{Scope: annals.ScopeUser, ID: "c7"}) || f.get.Format != annals.FormatMarkdown {
		t.Errorf("export: %d, get params %+v", res.StatusCode, f.get)
	}
}

// TestPlainDatesAreWholeDaysOnEveryEnvelope proves {"from": "2026-02-01"} reaches the service
// as that day's first instant and "to" as its last, on the op envelope and on /v1/_history.
func TestPlainDatesAreWholeDaysOnEveryEnvelope(t *testing.T) {
	f := &fakeService{}
	url := startFake(t, f)
	start := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	end := start.Add(24*time.Hour - time.Nanosecond)
	for _, path := range []string{"/v1/history", "/v1/_history"} {
		f.list = annals.ListParams{}
		if status, body := postFake(t, url+path, `{"op":"list","from":"2026-02-01","to":"2026-02-01"}`); status != http.StatusOK {
			t.Fatalf("%s: %d %s", path, status, body)
		}
		if p := f.list.Filter; p.From == nil || !p.From.Equal(start) || p.To == nil || !p.To.Equal(end) {
			t.Errorf("%s: from %v to %v, want %v to %v", path, p.From, p.To, start, end)
		}
	}
	if status, body := postFake(t, url+"/v1/history", `{"op":"list","from":"yesterday"}`); status != http.StatusBadRequest || !strings.Contains(body, "2026-01-31 (the whole day, UTC)") {
		t.Errorf("a word for a date: %d %s, want 400 naming the accepted forms", status, body)
	}
}

func TestServiceErrorsMapToOneStatusEach(t *testing.T) {
	for _, tc := range []struct {
		err    error
		status int
		msg    string
	}{
		{annals.NotFound("c1"), http.StatusNotFound, `chat \"c1\" not found`},
		{annals.Errorf(annals.EINVALID, "bad limit"), http.StatusBadRequest, "bad limit"},
		{annals.Errorf(annals.EFORBIDDEN, "no"), http.StatusForbidden, "no"},
		{annals.Errorf(annals.ECONFLICT, "taken"), http.StatusConflict, "taken"},
		{annals.Errorf(annals.EUNAVAILABLE, "down"), http.StatusServiceUnavailable, "down"},
		{annals.Internal("store", errors.New("disk on fire")), http.StatusInternalServerError, "internal error"},
	} {
		f := &fakeService{err: tc.err}
		url := startFake(t, f)
		status, body := postFake(t, url+"/v1/history", `{"op":"list"}`)
		if status != tc.status || !strings.Contains(body, tc.msg) || strings.Contains(body, "disk on fire") {
			t.Errorf("%v: %d %s, want %d with %q", tc.err, status, body, tc.status, tc.msg)
		}
	}
	// Decoding errors never reach the service.
	f := &fakeService{}
	url := startFake(t, f)
	if status, _ := postFake(t, url+"/v1/history", `{"op":"list","limit":"five"}`); status != http.StatusBadRequest || len(f.calls) != 0 {
		t.Errorf("a malformed envelope: %d, calls %v", status, f.calls)
	}
	if status, body := postFake(t, url+"/query", `{"kind":"agents"}`); status != http.StatusNotImplemented || !strings.Contains(body, "not_implemented") {
		t.Errorf("/query without a store: %d %s", status, body)
	}
}
