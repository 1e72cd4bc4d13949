package strictjson_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/strictjson"
)

// nested is n arrays, one inside the other, around inner.
func nested(n int, inner string) string {
	return strings.Repeat("[", n) + inner + strings.Repeat("]", n)
}

func TestCheckRefusesNestingPastTheBoundByName(t *testing.T) {
	bound := fmt.Sprintf("at most %d levels", strictjson.MaxDepth)
	for name, body := range map[string]string{
		"arrays":                     nested(strictjson.MaxDepth+1, "1"),
		"objects":                    strings.Repeat(`{"a":`, strictjson.MaxDepth+1) + "1" + strings.Repeat("}", strictjson.MaxDepth+1),
		"deep inside a known field":  `{"op":"list","list":` + nested(strictjson.MaxDepth, "") + `}`,
		"200 KB of open brackets":    strings.Repeat("[", 200<<10),
		"an unterminated deep value": `{"op":` + strings.Repeat("[", strictjson.MaxDepth+5),
	} {
		err := strictjson.Check([]byte(body), &request{})
		if annals.ErrorCode(err) != annals.EINVALID || !strings.Contains(annals.ErrorMessage(err), bound) {
			t.Errorf("%s: err %v, want invalid naming %q", name, err, bound)
		}
	}
}

func TestCheckAcceptsNestingUpToTheBound(t *testing.T) {
	for name, body := range map[string]string{
		"arrays at the bound":         nested(strictjson.MaxDepth, "1"),
		"brackets inside strings":     `{"op":"` + strings.Repeat("[{", 5000) + `"}`,
		"escaped quotes in strings":   `{"op":"\"[[[[\\\"","title":"` + strings.Repeat("[", 300) + `"}`,
		"a deep map under the object": `{"attrs":` + strings.Repeat(`{"k":`, strictjson.MaxDepth-1) + `"v"` + strings.Repeat("}", strictjson.MaxDepth) + `}`,
	} {
		if err := strictjson.Check([]byte(body), nil); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestCheckDepthCountsEveryValueOfJSONLines(t *testing.T) {
	lines := strings.Repeat(nested(strictjson.MaxDepth, "0")+"\n", 3)
	if err := strictjson.CheckDepth([]byte(lines), strictjson.MaxDepth); err != nil {
		t.Fatalf("three lines at the bound: %v", err)
	}
	err := strictjson.CheckDepth([]byte(lines+nested(strictjson.MaxDepth+1, "0")), strictjson.MaxDepth)
	if annals.ErrorCode(err) != annals.EINVALID {
		t.Fatalf("a fourth line past the bound: %v", err)
	}
}

// A broken string cannot hide the lines after it: a raw newline ends it, as no JSON string
// holds one.
func TestAnUnterminatedStringDoesNotHideTheNextLine(t *testing.T) {
	for name, first := range map[string]string{"open string": `{"a":"x`, "open escape": `{"a":"x\`} {
		body := first + "\n" + nested(strictjson.MaxDepth+1, "1") + "\n"
		if err := strictjson.CheckDepth([]byte(body), strictjson.MaxDepth); annals.ErrorCode(err) != annals.EINVALID {
			t.Errorf("%s, then a line past the bound: %v", name, err)
		}
	}
}

func TestDepthReaderStopsBeforeTheByteThatGoesTooDeep(t *testing.T) {
	body := `{"a":` + nested(10, "1") + `}`
	r := strictjson.NewDepthReader(strings.NewReader(body), 5)
	got, err := io.ReadAll(r)
	if annals.ErrorCode(err) != annals.EINVALID || !strings.Contains(annals.ErrorMessage(err), "at most 5 levels") {
		t.Fatalf("err %v", err)
	}
	if want := `{"a":[[[[`; string(got) != want {
		t.Errorf("passed %q before the error, want %q", got, want)
	}
	if _, err := r.Read(make([]byte, 10)); r.Err() == nil || err != r.Err() {
		t.Errorf("a later read: %v, Err %v", err, r.Err())
	}
	ok := strictjson.NewDepthReader(strings.NewReader(body), 11)
	if got, err := io.ReadAll(ok); err != nil || string(got) != body {
		t.Errorf("within the bound: %q, %v", got, err)
	}
}

// doneAfter is a context whose Err turns to DeadlineExceeded after n looks: a deadline that
// passes in the middle of a walk, at a known step.
type doneAfter struct {
	context.Context
	n int
}

func (d *doneAfter) Err() error {
	if d.n--; d.n < 0 {
		return context.DeadlineExceeded
	}
	return nil
}

func TestCheckStopsAtTheDeadline(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"op":"list","list":[`)
	for i := range 100000 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"since":"x"}`)
	}
	b.WriteString("]}")
	body := []byte(b.String())
	if err := strictjson.CheckContext(context.Background(), body, &request{}); err != nil {
		t.Fatalf("without a deadline: %v", err)
	}
	ctx := &doneAfter{Context: context.Background(), n: 3}
	err := strictjson.CheckContext(ctx, body, &request{})
	if annals.ErrorCode(err) != annals.EUNAVAILABLE || !strings.Contains(annals.ErrorMessage(err), "deadline") {
		t.Fatalf("a deadline passing mid-walk: %v", err)
	}
	expired, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	if err := strictjson.CheckContext(expired, body, &request{}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("an expired deadline: %v, want it to wrap context.DeadlineExceeded", err)
	}
}
