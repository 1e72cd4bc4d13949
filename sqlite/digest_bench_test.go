//go:build unix

package sqlite_test

import (
	"fmt"
	"testing"

	"github.com/annals-dev/annals/storetest"
)

// BenchmarkDigestScan times the digest worker's walk over 1k and 10k chats never digested
// (docs/BENCHMARKS.md), with the CPU it takes.
func BenchmarkDigestScan(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("chats=%d", n), func(b *testing.B) { storetest.BenchDigestScan(b, MustOpenDB(b), n, cpuTime) })
	}
}
