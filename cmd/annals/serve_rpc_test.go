package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/connect"
	"github.com/annals-dev/annals/httpapi"
)

// `annals serve` answers the Connect API on its HTTP port, gRPC (h2c) included, behind its API
// keys: what one client captures there, another reads back over HTTP.
func TestServeAnswersConnectAndGRPC(t *testing.T) {
	tm := newTestMain(t)
	var key struct {
		Secret string `json:"secret"`
	}
	if err := json.Unmarshal([]byte(tm.mustRun("", "keys", "create", "--json", "--name", "rpc", "--tenant", "acme", "--user", "ann")), &key); err != nil {
		t.Fatal(err)
	}
	s := startServe(t, tm)
	ctx := context.Background()
	g, err := connect.NewClient(s.url, key.Secret, connect.ProtocolGRPC)
	if err != nil {
		t.Fatal(err)
	}
	chat, err := annals.CreateChat(ctx, g, &annals.Chat{ID: "rpc-1", Title: "over gRPC"})
	if err != nil || chat.TenantID != "acme" || chat.UserID != "ann" {
		t.Fatalf("CreateChat over gRPC: %+v, %v", chat, err)
	}
	if _, err := annals.AppendEntries(ctx, g, "rpc-1", []*annals.Entry{{ID: "m1", Kind: annals.KindUser, Text: "captured over grpc"}}); err != nil {
		t.Fatal(err)
	}
	status, body := httpDo(t, "POST", s.url+"/v1/history", key.Secret, `{"op":"search","query":"captured"}`)
	if status != 200 || !json.Valid([]byte(body)) || !strings.Contains(body, `"rpc-1"`) {
		t.Fatalf("search over HTTP: %d %s", status, body)
	}
	anon, _ := connect.NewClient(s.url, "", connect.ProtocolConnect)
	if _, err := anon.FindChats(ctx, annals.ListParams{}); annals.ErrorCode(err) != httpapi.CodeUnauthorized {
		t.Errorf("the Connect API without a key: %v, want unauthorized", err)
	}
}
