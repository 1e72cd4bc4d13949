package corpus_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/corpus"
	"github.com/annals-dev/annals/ingest"
	"github.com/annals-dev/annals/sqlite"
)

func generate(t *testing.T, opts corpus.Options) ([]byte, corpus.Stats) {
	t.Helper()
	var buf bytes.Buffer
	st, err := corpus.Write(&buf, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), st
}

func TestWriteIsDeterministic(t *testing.T) {
	opts := corpus.Options{Seed: 42, Entries: 3000, Tenants: 4}
	a, sa := generate(t, opts)
	b, sb := generate(t, opts)
	if ha, hb := sha256.Sum256(a), sha256.Sum256(b); ha != hb {
		t.Fatalf("two runs with the same options differ: sha256 %x and %x", ha, hb)
	}
	if sa.Bytes != int64(len(a)) || sb.Bytes != sa.Bytes {
		t.Errorf("got Stats.Bytes %d and %d, want the output size %d", sa.Bytes, sb.Bytes, len(a))
	}
	opts.Seed = 43
	if c, _ := generate(t, opts); bytes.Equal(a, c) {
		t.Error("seeds 42 and 43 gave the same corpus")
	}
}

// record is the union of the fields the tests look at.
type record struct {
	Type      string     `json:"type"`
	ID        string     `json:"id"`
	ChatID    string     `json:"chat_id"`
	TenantID  string     `json:"tenant_id"`
	UserID    string     `json:"user_id"`
	AgentID   string     `json:"agent_id"`
	Kind      string     `json:"kind"`
	Time      *time.Time `json:"time"`
	CreatedAt *time.Time `json:"created_at"`
	Text      string     `json:"text"`
	Tool      *struct {
		Name    string `json:"name"`
		Result  string `json:"result"`
		Outcome string `json:"outcome"`
	} `json:"tool"`
	Status string `json:"status"`
}

func records(t *testing.T, data []byte) ([]record, []int) {
	t.Helper()
	var out []record
	var sizes []int
	for line := range bytes.Lines(data) {
		var r record
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("line %d: %v", len(out)+1, err)
		}
		out = append(out, r)
		sizes = append(sizes, len(line))
	}
	return out, sizes
}

func TestWriteProducesTheCaptureFormat(t *testing.T) {
	data, st := generate(t, corpus.Options{Seed: 7, Entries: 5000, Chats: 60, Tenants: 3, Users: 8, Agents: 4})

	// The ingest decoder is the format's reference: every line must pass it.
	dec := ingest.NewDecoder(bytes.NewReader(data))
	lines := 0
	for {
		_, err := dec.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		lines++
	}
	if lines != st.Lines {
		t.Errorf("decoded %d lines, Stats.Lines says %d", lines, st.Lines)
	}

	recs, _ := records(t, data)
	var (
		chats, entries, tools, failed       int
		tenants, users, agents, kinds, runs []string
		last                                time.Time
		perChat                             = map[string]int{}
		statuses                            = map[string]bool{}
	)
	addUnique := func(list *[]string, v string) {
		if v != "" && !slices.Contains(*list, v) {
			*list = append(*list, v)
		}
	}
	for i, r := range recs {
		switch r.Type {
		case "chat":
			chats++
			addUnique(&tenants, r.TenantID)
			addUnique(&users, r.UserID)
			addUnique(&agents, r.AgentID)
			if r.CreatedAt.Before(last) {
				t.Errorf("line %d: chat created at %v, before the previous record's %v", i+1, r.CreatedAt, last)
			}
			last = *r.CreatedAt
		case "entry":
			entries++
			perChat[r.ChatID]++
			addUnique(&kinds, r.Kind)
			if r.Time.Before(last) {
				t.Errorf("line %d: entry time %v goes back from %v", i+1, r.Time, last)
			}
			last = *r.Time
			if r.Tool != nil {
				tools++
				if r.Tool.Outcome == "failed" {
					failed++
				}
			}
		case "run":
			addUnique(&runs, r.ID)
			statuses[r.Status] = true
		}
	}
	if chats != 60 || st.Chats != 60 {
		t.Errorf("got %d chat lines and Stats.Chats %d, want 60", chats, st.Chats)
	}
	if entries != 5000 || st.Entries != 5000 {
		t.Errorf("got %d entry lines and Stats.Entries %d, want exactly 5000", entries, st.Entries)
	}
	if len(runs) != st.Runs || tools != st.ToolCalls || failed != st.FailedToolCalls {
		t.Errorf("got %d runs, %d tool calls, %d failed; Stats says %d, %d, %d", len(runs), tools, failed, st.Runs, st.ToolCalls, st.FailedToolCalls)
	}
	for id, n := range perChat {
		if n < 2 {
			t.Errorf("chat %s has %d entries, want at least 2", id, n)
		}
	}
	if len(tenants) != 3 || len(agents) < 3 || len(users) < 5 {
		t.Errorf("got tenants %v, users %v, agents %v; want 3 tenants and a spread of users and agents", tenants, users, agents)
	}
	for _, k := range []string{"user", "assistant", "tool", "system"} {
		if !slices.Contains(kinds, k) {
			t.Errorf("no entry of kind %q in %v", k, kinds)
		}
	}
	if failed == 0 || failed > tools/4 {
		t.Errorf("got %d failed tool calls of %d, want some but not most", failed, tools)
	}
	for _, s := range []string{"running", "completed"} {
		if !statuses[s] {
			t.Errorf("no run with status %q", s)
		}
	}
	if start := time.Date(2025, 1, 6, 8, 0, 0, 0, time.UTC); !st.First.Equal(start) || !st.Last.Equal(last) {
		t.Errorf("got Stats.First %v and Last %v, want the default start %v and the last entry's time %v", st.First, st.Last, start, last)
	}
}

func TestEntriesLookLikeAgentTranscripts(t *testing.T) {
	data, _ := generate(t, corpus.Options{Seed: 1, Entries: 20000})
	recs, sizes := records(t, data)
	var entrySizes []int
	toolNames := map[string]int{}
	large := 0
	for i, r := range recs {
		if r.Type != "entry" {
			continue
		}
		entrySizes = append(entrySizes, sizes[i])
		if sizes[i] > 2048 {
			large++
		}
		if r.Tool != nil {
			toolNames[r.Tool.Name]++
		}
	}
	slices.Sort(entrySizes)
	if med := entrySizes[len(entrySizes)/2]; med < 200 || med > 600 {
		t.Errorf("median entry line is %d bytes, want 200-600", med)
	}
	if large == 0 || large > len(entrySizes)/20 {
		t.Errorf("%d of %d entries are over 2 KiB, want a few", large, len(entrySizes))
	}
	for _, name := range []string{"Bash", "Read", "Edit", "Write", "Grep", "Glob", "WebFetch"} {
		if toolNames[name] == 0 {
			t.Errorf("no %s tool call in %v", name, toolNames)
		}
	}
	for _, want := range []string{`https://emag.ro/`, `goroutine `, `Traceback (most recent call last)`, `.go:`, `"file_path":`, `--- FAIL: Test`} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("the corpus never contains %q", want)
		}
	}
}

// TestMarkersFollowTheirPeriods checks the documented frequencies: one carrier per window of
// Every entries, and the counts in Stats.
func TestMarkersFollowTheirPeriods(t *testing.T) {
	const n = 20000
	data, st := generate(t, corpus.Options{Seed: 3, Entries: n})
	recs, _ := records(t, data)
	var texts [][]byte
	for line := range bytes.Lines(data) {
		texts = append(texts, line)
	}
	for _, m := range corpus.Markers() {
		word := regexp.MustCompile(`\b` + m.Term + `\b`)
		windows := map[int]int{}
		count, idx := 0, 0
		for i, r := range recs {
			if r.Type != "entry" {
				continue
			}
			if bytes.Contains(texts[i], []byte(m.Term)) && word.Match(texts[i]) { // Contains first: regexp under -race is slow
				windows[idx/m.Every]++
				count++
			}
			idx++
		}
		for w := range n / m.Every {
			if windows[w] != 1 {
				t.Errorf("%s: window %d (entries %d-%d) has %d carriers, want 1", m.Term, w, w*m.Every, (w+1)*m.Every-1, windows[w])
			}
		}
		if lo, hi := max(1, n/m.Every), n/m.Every+1; count < lo || count > hi {
			t.Errorf("%s: %d carriers in %d entries, want %d to %d", m.Term, count, n, lo, hi)
		}
		i := slices.IndexFunc(st.Markers, func(c corpus.MarkerCount) bool { return c.Term == m.Term })
		if i < 0 || st.Markers[i].Entries != count || st.Markers[i].Every != m.Every {
			t.Errorf("%s: Stats.Markers %+v, want %d entries every %d", m.Term, st.Markers, count, m.Every)
		}
	}
}

func TestEntriesIsAnExactTotal(t *testing.T) {
	for _, tc := range []corpus.Options{
		{Entries: 1},
		{Entries: 2},
		{Entries: 3, Chats: 10},
		{Entries: 999, Chats: 7},
		{Entries: 1000, EntriesPerChat: 3},
		{Entries: 10000, Chats: 2},
	} {
		var seen int
		st, err := corpus.Write(io.Discard, tc, func(n int) { seen = n })
		if err != nil {
			t.Fatal(err)
		}
		if st.Entries != tc.Entries || seen != tc.Entries {
			t.Errorf("%+v: wrote %d entries, last progress %d, want %d", tc, st.Entries, seen, tc.Entries)
		}
		if tc.Chats > 0 && tc.Chats*2 <= tc.Entries && st.Chats != tc.Chats {
			t.Errorf("%+v: wrote %d chats, want %d", tc, st.Chats, tc.Chats)
		}
	}
}

func TestProgressCountsUp(t *testing.T) {
	var calls []int
	st, err := corpus.Write(io.Discard, corpus.Options{Seed: 5, Entries: 3500}, func(n int) { calls = append(calls, n) })
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{1000, 2000, 3000, 3500}; !slices.Equal(calls, want) || st.Entries != 3500 {
		t.Errorf("got progress calls %v, want %v", calls, want)
	}
	calls = nil
	if _, err := corpus.Write(io.Discard, corpus.Options{Seed: 5, Entries: 2000}, func(n int) { calls = append(calls, n) }); err != nil {
		t.Fatal(err)
	}
	if want := []int{1000, 2000}; !slices.Equal(calls, want) {
		t.Errorf("got progress calls %v for 2000 entries, want %v: the last count once", calls, want)
	}
}

type failingWriter struct{ left int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if len(p) > w.left {
		n := w.left
		w.left = 0
		return n, errors.New("disk full")
	}
	w.left -= len(p)
	return len(p), nil
}

func TestWriteStopsAtAWriteError(t *testing.T) {
	st, err := corpus.Write(&failingWriter{left: 300 << 10}, corpus.Options{Entries: 10000}, nil)
	if err == nil || err.Error() != "corpus: disk full" {
		t.Fatalf("got error %v, want corpus: disk full", err)
	}
	if st.Bytes != 300<<10 || st.Entries == 0 || st.Entries >= 10000 {
		t.Errorf("got %d bytes and %d entries before the failure, want 300 KiB and part of the corpus", st.Bytes, st.Entries)
	}
}

// TestCorpusIngestsIntoSQLite runs the corpus through the real ingest path and then finds the
// markers through the full-text index, as the search benchmarks will. It stays small because
// SQLite under -race is slow.
func TestCorpusIngestsIntoSQLite(t *testing.T) {
	ctx := context.Background()
	data, st := generate(t, corpus.Options{Seed: 11, Entries: 300, Chats: 6})
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "annals.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rep, err := ingest.Ingest(ctx, db, bytes.NewReader(data), ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.ChatsCreated != st.Chats || rep.EntriesAppended != st.Entries || rep.Lines != st.Lines {
		t.Errorf("ingest created %d chats, appended %d entries from %d lines; the corpus has %d, %d, %d",
			rep.ChatsCreated, rep.EntriesAppended, rep.Lines, st.Chats, st.Entries, st.Lines)
	}
	for _, m := range st.Markers {
		refs, err := db.MatchEntries(ctx, annals.TextMatch{Owner: annals.Owner{AllTenants: true}, Terms: []string{m.Term}})
		if err != nil {
			t.Fatal(err)
		}
		if len(refs) != m.Entries {
			t.Errorf("search for %s found %d entries, the corpus planted it in %d", m.Term, len(refs), m.Entries)
		}
	}
	for _, id := range st.Pinned {
		if _, err := db.FindChatByID(ctx, id); err != nil {
			t.Errorf("pinned chat %s: %v", id, err)
		}
	}
}

func TestTenantNamesReplaceTheBuiltInTenantsAndNoMarkersPlantsNone(t *testing.T) {
	data, st := generate(t, corpus.Options{Seed: 3, Entries: 400, Chats: 20, Tenants: 3, TenantNames: []string{"small-co"}, NoMarkers: true})
	if len(st.Markers) != 0 || bytes.Contains(data, []byte(corpus.CommonTerm)) {
		t.Errorf("markers %+v planted, want none", st.Markers)
	}
	recs, _ := records(t, data)
	seen := map[string]bool{}
	for _, r := range recs {
		if r.TenantID != "" {
			seen[r.TenantID] = true
		}
	}
	if len(seen) != 1 || !seen["small-co"] {
		t.Errorf("got tenants %v, want only small-co", seen)
	}
}
