package httpapi_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/httpapi"
)

// deletingService deletes the chat just before the export reads its second page, as another
// caller deleting it during the download would.
type deletingService struct {
	annals.HistoryService
}

func (d deletingService) GetChat(ctx context.Context, p annals.GetParams) (*annals.ChatView, error) {
	if p.Cursor != "" {
		if err := d.DeleteChat(ctx, p.Chat); err != nil {
			return nil, err
		}
	}
	return d.HistoryService.GetChat(ctx, p)
}

// A JSON export that fails after its first byte (the chat deleted mid-download) must not end
// like a whole one: the connection is dropped before the response's end, so a plain HTTP client
// and the Go client both see the cut instead of keeping a truncated file.
func TestExportCutMidStreamIsAFailureTheClientSees(t *testing.T) {
	e := newEnv(t, nil, func(c *httpapi.Config) { c.Service = deletingService{c.Service} })
	ctx := annals.NewContextWithPrincipal(context.Background(), history.LocalOwner())
	if _, err := annals.CreateChat(ctx, e.svc, &annals.Chat{ID: "long"}); err != nil {
		t.Fatal(err)
	}
	// More entries than one export page holds, so the export reads a second page.
	entries := make([]*annals.Entry, history.MaxGetLimit+10)
	for i := range entries {
		entries[i] = &annals.Entry{ID: fmt.Sprintf("e%d", i), Kind: annals.KindUser, Text: "line of the long chat"}
	}
	if _, err := annals.AppendEntries(ctx, e.svc, "long", entries); err != nil {
		t.Fatal(err)
	}

	res, err := http.Get(e.url + "/v1/sessions/long/export?format=json")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(string(body), `{"chat":`) {
		t.Fatalf("the export did not start: %d %.200s", res.StatusCode, body)
	}
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("reading a cut export: err %v after %d bytes, want unexpected EOF (the body ends %q)", err, len(body), tail(body))
	}
	if strings.HasSuffix(string(body), "]}\n") {
		t.Errorf("the cut export carries the document's end")
	}
	// The access log line is written once the handler returns, after the client saw the cut.
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(e.logs.String(), `"aborted":true`); {
		if time.Now().After(deadline) {
			t.Fatalf("the access log does not say the response was aborted: %s", e.logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}

	// The Go client (what annals --server uses) reports the cut as an error, not a document.
	if _, err := annals.CreateChat(ctx, e.svc, &annals.Chat{ID: "long"}); err != nil {
		t.Fatal(err)
	}
	if _, err := annals.AppendEntries(ctx, e.svc, "long", entries); err != nil {
		t.Fatal(err)
	}
	doc, err := e.client("").Export(context.Background(), "long", "json", "")
	if annals.ErrorCode(err) != annals.EUNAVAILABLE || !strings.Contains(annals.ErrorMessage(err), "cut short") {
		t.Fatalf("client export of a cut download: %v (%d bytes), want unavailable: cut short", err, len(doc))
	}
}

// The server speaks HTTP/2 without TLS (h2c, which gRPC clients need) beside HTTP/1.1; an
// export cut over HTTP/2, where there is no connection to take over, resets its stream, so the
// client sees a failure there too, never a clean end.
func TestExportCutOverH2CIsAFailureTheClientSees(t *testing.T) {
	e := newEnv(t, nil, func(c *httpapi.Config) { c.Service = deletingService{c.Service} })
	ctx := annals.NewContextWithPrincipal(context.Background(), history.LocalOwner())
	if _, err := annals.CreateChat(ctx, e.svc, &annals.Chat{ID: "long"}); err != nil {
		t.Fatal(err)
	}
	entries := make([]*annals.Entry, history.MaxGetLimit+10)
	for i := range entries {
		entries[i] = &annals.Entry{ID: fmt.Sprintf("e%d", i), Kind: annals.KindUser, Text: "line of the long chat"}
	}
	if _, err := annals.AppendEntries(ctx, e.svc, "long", entries); err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{Protocols: new(http.Protocols)}
	tr.Protocols.SetUnencryptedHTTP2(true)
	h2c := &http.Client{Transport: tr}
	defer tr.CloseIdleConnections()

	res, err := h2c.Get(e.url + "/v1/sessions/long/export?format=json")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if res.ProtoMajor != 2 {
		t.Fatalf("the export was answered over %s, want HTTP/2 (h2c)", res.Proto)
	}
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(string(body), `{"chat":`) {
		t.Fatalf("the export did not start: %d %.200s", res.StatusCode, body)
	}
	if err == nil || strings.HasSuffix(string(body), "]}\n") {
		t.Fatalf("reading a cut export over h2c: err %v after %d bytes (ends %q), want the stream reset", err, len(body), tail(body))
	}
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(e.logs.String(), `"aborted":true`); {
		if time.Now().After(deadline) {
			t.Fatalf("the access log does not say the response was aborted: %s", e.logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	// The same server still answers HTTP/1.1 clients.
	res, err = http.Get(e.url + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.ProtoMajor != 1 || res.StatusCode != http.StatusOK {
		t.Fatalf("GET /healthz over HTTP/1.1: %s %d", res.Proto, res.StatusCode)
	}
}

// Exports are downloads a browser must never sniff into a page: a transcript can hold HTML.
func TestExportsAreNeverSniffed(t *testing.T) {
	e := newEnv(t, nil)
	ctx := annals.NewContextWithPrincipal(context.Background(), history.LocalOwner())
	if _, err := annals.CreateChat(ctx, e.svc, &annals.Chat{ID: "html", Title: "<script>alert(1)</script>"}); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"markdown", "json"} {
		res, err := http.Get(e.url + "/v1/sessions/html/export?format=" + format)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK || res.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s export: %d, X-Content-Type-Options %q, want nosniff", format, res.StatusCode, res.Header.Get("X-Content-Type-Options"))
		}
	}
}

func tail(b []byte) string {
	return string(b[max(0, len(b)-40):])
}
