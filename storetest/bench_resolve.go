package storetest

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/annals-dev/annals"
)

// BenchResolve fills s with n Claude Code chats in one tenant (ids claude-code:<uuid>) and
// times, for each kind of id a person gives, how the id resolution finds its candidates:
// "scan" is the id prefix filter it used before (FindChats with IDPrefix, a scan of the
// tenant's chats), "index" is MatchChatIDs (ranges of chat_id_keys). Both backends run it.
func BenchResolve(b *testing.B, s annals.Store, n int) {
	ctx := b.Context()
	rng := rand.New(rand.NewPCG(1, 2))
	ids := make([]string, 0, n)
	for len(ids) < n {
		ops := make([]annals.CaptureOp, 0, 1000)
		for i := 0; i < 1000 && len(ids) < n; i++ {
			id := fmt.Sprintf("claude-code:%08x-%04x-4%03x-8%03x-%012x", rng.Uint32(), rng.Uint32()&0xffff,
				rng.Uint32()&0xfff, rng.Uint32()&0xfff, rng.Uint64()&0xffffffffffff)
			ids = append(ids, id)
			ops = append(ops, annals.CaptureOp{Chat: NewChat(id, "A")})
		}
		if _, err := s.Capture(ctx, ops); err != nil {
			b.Fatal(err)
		}
	}
	owner := annals.Owner{TenantID: "A"}
	pick := ids[n/2]
	for _, tc := range []struct{ name, id string }{
		{"full-id", pick},
		{"source-uuid", pick[len("claude-code:"):]},
		{"prefix-8", pick[len("claude-code:") : len("claude-code:")+8]},
		{"unknown", "feedface-0000-4000-8000-000000000000"},
	} {
		b.Run("scan/"+tc.name, func(b *testing.B) {
			for b.Loop() {
				if _, _, err := s.FindChats(ctx, annals.ChatFilter{Owner: owner, IDPrefix: tc.id, IncludeArchived: true, Limit: 11}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("index/"+tc.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := s.MatchChatIDs(ctx, owner, tc.id, 11); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// ResolveBenchChats is the number of chats BenchResolve fills: 100,000, or
// ANNALS_BENCH_RESOLVE_CHATS.
func ResolveBenchChats(b *testing.B) int {
	v := os.Getenv("ANNALS_BENCH_RESOLVE_CHATS")
	if v == "" {
		return 100_000
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		b.Fatalf("ANNALS_BENCH_RESOLVE_CHATS=%q: want a positive number of chats", v)
	}
	return n
}
