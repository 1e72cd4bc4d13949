package httpapi_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/envelope"
	"github.com/annals-dev/annals/httpapi"
)

// Every answer names the server's API version; a client whose server lacks an op or a route
// it calls gets not_implemented naming both versions, not a puzzling invalid or not_found.
func TestClientNamesBothVersionsWhenTheServerLacksACall(t *testing.T) {
	f := newTwoTenants(t)
	for _, path := range []string{"/healthz", "/v1/nowhere"} {
		res, err := http.Get(f.url + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if got := res.Header.Get(annals.APIVersionHeader); got != annals.APIVersion {
			t.Errorf("GET %s: %s %q, want %q", path, annals.APIVersionHeader, got, annals.APIVersion)
		}
	}
	// A server of the same version refuses an unknown op as the caller's mistake.
	_, err := envelope.Dispatch(context.Background(), f.client(f.keyA), &envelope.Request{Op: "nope"})
	if annals.ErrorCode(err) != annals.EINVALID {
		t.Errorf("an unknown op on a server of this version: %v, want invalid", err)
	}

	// A server of an older API: it answers as annals did before the op or route existed (an
	// older binary cannot run here), naming its version 0.9.
	old := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(annals.APIVersionHeader, "0.9")
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/v1/history" {
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"error":{"code":"invalid","message":"unknown op \"usage\" (want one of: list, search, get)"}}`))
			return
		}
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{"error":{"code":"not_found","message":"no route ` + r.Method + ` ` + r.URL.Path + ` (see docs/HTTP.md)"}}`))
	}))
	defer old.Close()
	c, err := httpapi.NewClient(old.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Usage(context.Background(), annals.UsageParams{})
	want := `the annals server speaks API version 0.9 and has no op "usage", which this client (API version ` + annals.APIVersion + `) needs`
	if annals.ErrorCode(err) != annals.ENOTIMPLEMENTED || !strings.Contains(annals.ErrorMessage(err), want) {
		t.Errorf("usage on an older server: %v, want not_implemented: %s", err, want)
	}
	_, err = c.FindChatRuns(context.Background(), annals.ChatSelector{ID: "a1"})
	if annals.ErrorCode(err) != annals.ENOTIMPLEMENTED || !strings.Contains(annals.ErrorMessage(err), "API version 0.9 and has no route GET /v1/sessions/a1/runs") {
		t.Errorf("runs on an older server: %v", err)
	}
}
