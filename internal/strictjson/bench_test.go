package strictjson_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/annals-dev/annals/internal/strictjson"
)

// benchBody is about size bytes of JSON in one of two shapes: "wide" (an envelope holding a long
// list of small objects) or "deep" (a list of values each nested to just under the bound, the
// shape whose cost grew with the square of its depth before the path was kept as a stack).
func benchBody(shape string, size int) []byte {
	var b strings.Builder
	b.WriteString(`{"op":"list","list":[`)
	unit := `{"since":"2025-01-01"}`
	if shape == "deep" {
		unit = `{"since":` + nested(strictjson.MaxDepth-3, `"x"`) + `}`
	}
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(unit)
	}
	b.WriteString("]}")
	return []byte(b.String())
}

// BenchmarkCheck shows the check linear in the size of the body: ns/op grows by the factor the
// size does, and MB/s stays flat, for both shapes.
func BenchmarkCheck(b *testing.B) {
	for _, shape := range []string{"wide", "deep"} {
		for _, size := range []int{20 << 10, 200 << 10, 2 << 20} {
			body := benchBody(shape, size)
			b.Run(fmt.Sprintf("%s/%dKB", shape, size>>10), func(b *testing.B) {
				b.SetBytes(int64(len(body)))
				b.ReportAllocs()
				for b.Loop() {
					if err := strictjson.Check(body, &request{}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkRefuseTooDeep is the cost of refusing the 200 KB body of nested arrays.
func BenchmarkRefuseTooDeep(b *testing.B) {
	body := []byte(strings.Repeat("[", 200<<10))
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if strictjson.Check(body, &request{}) == nil {
			b.Fatal("accepted")
		}
	}
}
