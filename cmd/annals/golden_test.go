package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The golden answers record what every transport answers — statuses and bodies of the HTTP
// routes, the op envelope's ops and their main errors, the MCP tools, the CLI commands — over
// fixed data, so a refactoring can prove it changed no behaviour. Regenerate with
//
//	go test ./cmd/annals -run TestGolden -update
//
// only when a change of behaviour is intended, and say so in the commit.
var updateGolden = flag.Bool("update", false, "rewrite the golden answers under testdata/golden")

// goldenChats is the fixed history every golden test starts from: two tenants, users and
// agents, runs, tools, tags and explicit times, so no answer depends on the clock.
const goldenChats = `{"type":"chat","id":"acme-deploy","tenant_id":"acme","user_id":"alice","agent_id":"coder","created_at":"2025-03-14T10:00:00Z","title":"Deploy the shop","description":"A failed deploy and its fix.","tags":["ops","deploy"],"attributes":{"source":"claude-code","cwd":"/home/alice/shop"}}
{"type":"run","chat_id":"acme-deploy","id":"r1","status":"running","model":"m-1","started_at":"2025-03-14T10:00:00Z"}
{"type":"entry","chat_id":"acme-deploy","id":"e1","kind":"user","run_id":"r1","time":"2025-03-14T10:00:01Z","text":"deploy the shop please"}
{"type":"entry","chat_id":"acme-deploy","id":"e2","kind":"tool","run_id":"r1","time":"2025-03-14T10:00:02Z","tool":{"name":"Bash","call_id":"t1","arguments":{"cmd":"make deploy"},"result":"permission denied","outcome":"failed"}}
{"type":"entry","chat_id":"acme-deploy","id":"e3","kind":"assistant","run_id":"r1","time":"2025-03-14T10:00:03Z","text":"The deploy failed: permission denied on the release directory."}
{"type":"run","chat_id":"acme-deploy","id":"r1","status":"completed","model":"m-1","ended_at":"2025-03-14T10:00:04Z","input_tokens":100,"output_tokens":20,"cost_usd":0.5}
{"type":"chat","id":"acme-review","tenant_id":"acme","user_id":"alice","agent_id":"reviewer","created_at":"2025-03-15T09:00:00Z","title":"Review the deploy script","tags":["review"]}
{"type":"entry","chat_id":"acme-review","id":"e1","kind":"user","time":"2025-03-15T09:00:01Z","text":"review the deploy script for races"}
{"type":"entry","chat_id":"acme-review","id":"e2","kind":"assistant","time":"2025-03-15T09:00:02Z","text":"The script copies before it locks; swap the two steps."}
{"type":"chat","id":"acme-bob","tenant_id":"acme","user_id":"bob","created_at":"2025-03-16T08:00:00Z","title":"Bob's cache notes"}
{"type":"entry","chat_id":"acme-bob","id":"e1","kind":"user","time":"2025-03-16T08:00:01Z","text":"why is the cache cold after a deploy"}
{"type":"chat","id":"other-deploy","tenant_id":"other","user_id":"mallory","created_at":"2025-03-17T07:00:00Z","title":"Other tenant deploy"}
{"type":"entry","chat_id":"other-deploy","id":"e1","kind":"user","time":"2025-03-17T07:00:01Z","text":"deploy the other tenant"}
`

// golden collects answers and compares them with (or writes them to) one testdata file.
type golden struct {
	t     *testing.T
	name  string
	buf   bytes.Buffer
	swaps []string // old, new pairs: secrets, ids and addresses that differ per run
}

func newGolden(t *testing.T, name string) *golden {
	g := &golden{t: t, name: name}
	t.Cleanup(g.check)
	return g
}

// hide replaces a per-run value (a key secret, a key id, the server's address) with a label.
func (g *golden) hide(value, label string) {
	if value != "" {
		g.swaps = append(g.swaps, value, label)
	}
}

// record adds one answer under a heading.
func (g *golden) record(heading, answer string) {
	fmt.Fprintf(&g.buf, "### %s\n%s\n\n", heading, strings.TrimRight(g.normalise(answer), "\n"))
}

var (
	goldenStamp   = regexp.MustCompile(`\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)?`)
	goldenSeconds = regexp.MustCompile(`"([a-z_]*(duration|took|elapsed)[a-z_]*)":\s*[0-9.e+-]+`)
	goldenRate    = regexp.MustCompile(`in [0-9.]+(ns|µs|ms|s|m[0-9.]+s) \([0-9.]+ entries/s\)`)
	goldenSecret  = regexp.MustCompile(`annals_[A-Za-z0-9_-]{43}`)
	goldenKeyID   = regexp.MustCompile(`key_[0-9a-f]{12}`)
	// A search score carries a recency factor measured against the clock: its last digits move.
	goldenScore = regexp.MustCompile(`"score":\s*([0-9.e+-]+)`)
)

// normalise hides what is truly not deterministic: per-run secrets and addresses, and times
// that are the moment of a write (a rename's updated_at, a key's created_at). Times of the
// fixed data (2025) are kept.
func (g *golden) normalise(s string) string {
	s = strings.NewReplacer(g.swaps...).Replace(s)
	now := time.Now()
	s = goldenStamp.ReplaceAllStringFunc(s, func(m string) string {
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05", "2006-01-02T15:04", "2006-01-02 15:04"} {
			if tm, err := time.Parse(layout, m); err == nil {
				if d := now.Sub(tm); d < 48*time.Hour && d > -48*time.Hour {
					return "<now>"
				}
				return m
			}
		}
		return m
	})
	s = goldenRate.ReplaceAllString(s, "in <elapsed>")
	s = goldenScore.ReplaceAllStringFunc(s, func(m string) string {
		v, err := strconv.ParseFloat(goldenScore.FindStringSubmatch(m)[1], 64)
		if err != nil {
			return m
		}
		return fmt.Sprintf(`"score":%.4g`, v)
	})
	s = goldenSecret.ReplaceAllString(s, "<secret>")
	s = goldenKeyID.ReplaceAllString(s, "<key>")
	return goldenSeconds.ReplaceAllString(s, `"$1":<elapsed>`)
}

func (g *golden) check() {
	if g.t.Failed() && !*updateGolden {
		return
	}
	path := filepath.Join("testdata", "golden", g.name)
	got := g.buf.Bytes()
	if *updateGolden {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			g.t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		g.t.Fatalf("%v (run with -update to record it)", err)
	}
	if !bytes.Equal(got, want) {
		g.t.Errorf("answers differ from %s (first difference below; -update rewrites it only for an intended change):\n%s", path, firstDiff(string(want), string(got)))
	}
}

// firstDiff shows the first differing answer of two recordings.
func firstDiff(want, got string) string {
	w, h := strings.Split("\n"+want, "\n### "), strings.Split("\n"+got, "\n### ")
	for i := 0; i < len(w) || i < len(h); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(h) {
			b = h[i]
		}
		if a != b {
			return fmt.Sprintf("--- want\n### %s\n--- got\n### %s", a, b)
		}
	}
	return ""
}
