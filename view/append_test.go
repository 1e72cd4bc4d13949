package view

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"
)

// TestAppendRawMatchesMarshal holds AppendRaw to what encoding/json writes for a json.RawMessage:
// compacted, <, >, &, U+2028 and U+2029 escaped, inside strings and out; invalid JSON refused.
func TestAppendRawMatchesMarshal(t *testing.T) {
	for _, raw := range []string{
		`null`, `1`, `"x"`, `{}`, `[]`, "{ \"a\" :\n [1, 2.50 ,\t\"<&>\u2028\u2029\"] , \"b\": {\"c\": null} }",
		"\"a\\u003cb <b> \\\" \\\\ é 🦅\"", " \"padded\" ", "[\"\xe2\x80\xa8\", \"\xe2\x80\xa9x\", \"\xe2\x80\xaa\"]",
	} {
		want, err := json.Marshal(json.RawMessage(raw))
		if err != nil {
			t.Fatalf("%q: %v", raw, err)
		}
		got, err := AppendRaw([]byte("p"), []byte(raw))
		if err != nil || !bytes.Equal(got, append([]byte("p"), want...)) {
			t.Errorf("%q: got %s, %v; want p%s", raw, got, err, want)
		}
	}
	for _, bad := range []string{`{nope`, `1 2`, `"open`, "\"\xff\""[:1]} {
		if _, err := AppendRaw(nil, []byte(bad)); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
	if got, err := AppendRaw(nil, nil); err != nil || string(got) != "null" {
		t.Errorf("empty: %s, %v; want null", got, err)
	}
}

// TestAppendRawRandom holds AppendRaw to encoding/json on random valid documents: white space,
// escapes and the escaped characters in and out of strings, in every arrangement.
func TestAppendRawRandom(t *testing.T) {
	pieces := []string{"{", "}", "[", "]", `"`, `\"`, `\\`, `\u003c`, ":", ",", " ", "\n", "\t", "\r", "1", "-2.5e3",
		"true", "null", "a", "<", ">", "&", "\u2028", "\u2029", "\u2027", "é", `"k"`, `"<&>"`}
	r := rand.New(rand.NewPCG(5, 6))
	checked := 0
	for range 200000 {
		var b []byte
		for range 1 + r.IntN(10) {
			b = append(b, pieces[r.IntN(len(pieces))]...)
		}
		if !json.Valid(b) {
			continue
		}
		checked++
		want, _ := json.Marshal(json.RawMessage(b))
		if got, err := AppendRaw(nil, b); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%q: got %s, %v; want %s", b, got, err, want)
		}
	}
	if checked < 1000 {
		t.Fatalf("only %d valid documents", checked)
	}
}

// TestAppendTimeMatchesFormat holds AppendTime to the layouts FormatTime used to hand to
// time.Format: milliseconds when the time has no finer part, else nanoseconds, in UTC, for times
// in any zone, at the edges of the four-digit years and beyond them.
func TestAppendTimeMatchesFormat(t *testing.T) {
	want := func(tm time.Time) string {
		tm = tm.UTC()
		if tm.Nanosecond()%int(time.Millisecond) == 0 {
			return tm.Format("2006-01-02T15:04:05.000Z07:00")
		}
		return tm.Format("2006-01-02T15:04:05.000000000Z07:00")
	}
	zone := time.FixedZone("x", -7*3600-30*60)
	times := []time.Time{{}, time.Unix(0, 0), time.Date(2026, 6, 1, 0, 0, 12, 345e6, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC), time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-1, 3, 4, 5, 6, 7, 8, time.UTC), time.Date(2026, 1, 1, 1, 0, 0, 1, zone)}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 2000; i++ {
		ns := r.Int64N(4e18) - 1e18
		if i%2 == 0 {
			ns -= ns % int64(time.Millisecond)
		}
		times = append(times, time.Unix(0, ns).In(zone))
	}
	for _, tm := range times {
		if got, exp := string(AppendTime([]byte("p"), tm)), "p"+want(tm); got != exp {
			t.Errorf("%v: %s, want %s", tm, got, exp)
		}
		if got := FormatTime(tm); got != want(tm) {
			t.Errorf("FormatTime(%v) = %s, want %s", tm, got, want(tm))
		}
	}
}
