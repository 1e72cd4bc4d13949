package httpapi_test

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"testing"

	"github.com/annals-dev/annals"
)

// BenchmarkResolveOverHTTP times a get by a chat id through a real server on a tenant of
// 100,000 chats (ANNALS_BENCH_RESOLVE_CHATS to change): an id nobody has (404), and a source
// tool's own id (the chat's id without claude-code:), the two that once scanned the tenant.
//
//	go test ./httpapi -run '^$' -bench ResolveOverHTTP -benchtime 20x
func BenchmarkResolveOverHTTP(b *testing.B) {
	n := 100_000
	if v := os.Getenv("ANNALS_BENCH_RESOLVE_CHATS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			b.Fatalf("ANNALS_BENCH_RESOLVE_CHATS=%q: want a positive number of chats", v)
		}
	}
	f := newTwoTenants(b)
	rng := rand.New(rand.NewPCG(1, 2))
	var source string
	for made := 0; made < n; {
		ops := make([]annals.CaptureOp, 0, 1000)
		for ; len(ops) < 1000 && made < n; made++ {
			source = fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", rng.Uint32(), rng.Uint32()&0xffff,
				rng.Uint32()&0xfff, rng.Uint32()&0xfff, rng.Uint64()&0xffffffffffff)
			ops = append(ops, annals.CaptureOp{Chat: &annals.Chat{ID: "claude-code:" + source, TenantID: "A", UserID: "ua1"}})
		}
		if _, err := f.db.Capture(b.Context(), ops); err != nil {
			b.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name, id string
		status   int
	}{
		{"unknown", "feedface-0000-4000-8000-000000000000", http.StatusNotFound},
		{"source-uuid", source, http.StatusOK},
	} {
		body := fmt.Sprintf(`{"op":"get","session_id":%q,"limit":1}`, tc.id)
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				f.must(tc.status, "POST", "/v1/history", f.keyA, body)
			}
		})
	}
}
