package queryview_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/httpapi"
	"github.com/annals-dev/annals/importer"
	"github.com/annals-dev/annals/sqlite"
)

// TestLaniusGoldenAnswers replays the answers recorded from the reference lanius history view
// (../shared/interop/lanius, README there) against annals: gen.py's deterministic database,
// imported with annals's lanius importer into SQLite, served at POST /query by a real server,
// asked every shared case as a client asks it. Each answer is compared as a client reads it
// (compareAnswer); the cases annals answers differently on purpose are in deliberate, each
// with what annals answers instead, and docs/QUERYVIEW.md lists them with the reasons.
//
// The database is built once into the user cache directory (about a minute, 250 MB). The test
// skips when python3 or the shared directory is absent; ANNALS_LANIUS_INTEROP names the
// directory when it is not ../shared/interop/lanius from the module root.
func TestLaniusGoldenAnswers(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and imports a 100k-message lanius database: not in -short")
	}
	if raceDetector {
		t.Skip("a replay of recorded answers, not a concurrency test: the plain run covers it (SQLite is ~35x slower under -race)")
	}
	dir := interopDir(t)
	src := generatedLanius(t, dir)
	ctx := context.Background()
	store, err := sqlite.Open(ctx, importedLanius(t, src), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	svc := history.New(history.Config{Store: store, View: store})
	srv := httpapi.New(httpapi.Config{Addr: "127.0.0.1:0", Service: svc, View: svc, Keys: store})
	if err := srv.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()

	var index []struct {
		File string `json:"file"`
		Case string `json:"case"`
	}
	readJSON(t, filepath.Join(dir, "golden", "INDEX.json"), &index)
	equal := 0
	var failed []string
	for _, c := range index {
		var gc goldenCase
		readJSON(t, filepath.Join(dir, "golden", c.File), &gc)
		diffs := replay(t, srv.URL(), gc)
		if check, ok := deliberate[c.Case]; ok {
			if len(diffs) == 0 {
				failed = append(failed, fmt.Sprintf("%s: answered as the reference does, but listed as a deliberate difference", c.Case))
			} else if d := check(gc, diffs); d != "" {
				failed = append(failed, fmt.Sprintf("%s (a deliberate difference, but not the one documented): %s", c.Case, d))
			}
			continue
		}
		if len(diffs) == 0 {
			equal++
			continue
		}
		failed = append(failed, fmt.Sprintf("%s: %s", c.Case, strings.Join(first(diffs, 5), "; ")))
	}
	t.Logf("%d of %d shared cases answered as the reference does, %d deliberate differences (docs/QUERYVIEW.md)", equal, len(index), len(deliberate))
	for _, f := range failed {
		t.Error(f)
	}
}

// deliberate are the shared cases annals answers differently on purpose (docs/QUERYVIEW.md,
// Deliberate differences): each checks that annals's answer is the documented one, given the
// reference's and the differences replay found, and says what is wrong otherwise.
var deliberate = map[string]func(gc goldenCase, got []exchangeResult) string{
	// The reference's server raises on a filter that is no object and drops the connection;
	// annals refuses the query in the view's error shape.
	"filter_as_list_drops_connection": func(gc goldenCase, got []exchangeResult) string {
		if len(got) != 1 || got[0].Status != http.StatusBadRequest || !isRefusal(got[0].Body) {
			return fmt.Sprintf("want 400 {\"ok\": false, \"error\": ...}, got %+v", got)
		}
		return ""
	},
	// The reference's agent filter reads "_" as a LIKE wildcard (kb_compactor also finds
	// kbXcompactor); annals's finds kb_compactor's sessions alone: the reference's answer
	// without the others, in its order.
	"sessions_agent_wild_underscore": func(gc goldenCase, got []exchangeResult) string {
		return literalSubset(gc, got, "sessions", func(item map[string]any) string { return item["session"].(string) })
	},
	// The same for a channel: in/agent/kb_compactor is no prefix of in/agent/kbXcompactor/...
	"search_channels_wild_underscore": func(gc goldenCase, got []exchangeResult) string {
		return literalSubset(gc, got, "messages", func(item map[string]any) string { return item["event_type"].(string) })
	},
}

// isRefusal reports whether an answer is the view's error shape.
func isRefusal(body any) bool {
	m, _ := body.(map[string]any)
	msg, _ := m["error"].(string)
	return m != nil && m["ok"] == false && msg != ""
}

// literalSubset checks a wildcard case: annals's list (key) must be the reference's without the
// items the wildcard alone matched, in the reference's order, as far as annals's page goes. An
// item the wildcard alone matched is one whose name (by sessions: ones annals does not list;
// by messages: an event type) is not kb_compactor's.
func literalSubset(gc goldenCase, got []exchangeResult, key string, name func(map[string]any) string) string {
	if len(got) != 1 || got[0].Status != http.StatusOK {
		return fmt.Sprintf("want one 200 answer, got %+v", got)
	}
	ref, _ := renumber(gc.Exchanges[0].Response.Body).(map[string]any)
	refItems, _ := ref[key].([]any)
	body, _ := got[0].Body.(map[string]any)
	items, _ := body[key].([]any)
	if len(items) == 0 || len(items) >= len(refItems) && key == "sessions" {
		return fmt.Sprintf("%d %s, want some but fewer than the reference's %d", len(items), key, len(refItems))
	}
	keep := map[string]bool{}
	for _, it := range items {
		n := name(it.(map[string]any))
		if key == "messages" && !strings.HasPrefix(n, "in/agent/kb_compactor/") && n != "in/agent/kb_compactor" {
			return fmt.Sprintf("message of %s matched in/agent/kb_compactor", n)
		}
		keep[n] = true
	}
	var want []any
	for _, it := range refItems {
		n := name(it.(map[string]any))
		if key == "sessions" && keep[n] || key == "messages" && (strings.HasPrefix(n, "in/agent/kb_compactor/") || n == "in/agent/kb_compactor") {
			want = append(want, it)
		}
	}
	if len(want) > len(items) {
		want = want[:len(items)]
	}
	if d := compareAnswer(key, want, items[:len(want)]); len(d) > 0 {
		return strings.Join(d, "; ")
	}
	return ""
}

// goldenCase is one recorded case.
type goldenCase struct {
	Case      string `json:"case"`
	Note      string `json:"note"`
	Exchanges []struct {
		Request struct {
			Method        string  `json:"method"`
			Path          string  `json:"path"`
			BodyRaw       *string `json:"body_raw"`
			ContentLength bool    `json:"content_length"`
		} `json:"request"`
		Response struct {
			Status *int `json:"status"`
			Body   any  `json:"body"`
		} `json:"response"`
	} `json:"exchanges"`
}

// exchangeResult is one replayed exchange: annals's status and body, and how they differ
// from the reference's.
type exchangeResult struct {
	Status int
	Body   any
	Diffs  []string
}

// replay sends every exchange of a case as a client would and compares the answers. A later
// request that passes back an id of the previous answer (its cursor, or the first message's
// id as before_id) passes annals's instead. It returns the differences, nil when none.
func replay(t *testing.T, base string, gc goldenCase) []exchangeResult {
	t.Helper()
	var out []exchangeResult
	var prevRef, prevGot any
	some := false
	for i, ex := range gc.Exchanges {
		var body io.Reader
		if raw := ex.Request.BodyRaw; raw != nil {
			b := passBack([]byte(*raw), prevRef, prevGot)
			body = bytes.NewReader(b)
			if !ex.Request.ContentLength {
				// No Content-Length: the client streams the body chunked.
				body = io.MultiReader(body)
			}
		}
		req, err := http.NewRequest(ex.Request.Method, base+ex.Request.Path, body)
		if err != nil {
			t.Fatal(err)
		}
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := http.DefaultClient.Do(req)
		r := exchangeResult{}
		if err != nil {
			r.Diffs = append(r.Diffs, fmt.Sprintf("exchange %d: %v", i, err))
		} else {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			r.Status = resp.StatusCode
			if err := decodeNumbers(b, &r.Body); err != nil {
				r.Diffs = append(r.Diffs, fmt.Sprintf("exchange %d: answer is no JSON: %.200s", i, b))
			}
		}
		want := ex.Response.Status
		switch {
		case want == nil && r.Status != 0:
			r.Diffs = append(r.Diffs, fmt.Sprintf("exchange %d: status %d, the reference closed the connection", i, r.Status))
		case want != nil && *want != r.Status:
			r.Diffs = append(r.Diffs, fmt.Sprintf("exchange %d: status %d, want %d (%.300s)", i, r.Status, *want, jsonText(r.Body)))
		case want != nil:
			refBody := renumber(ex.Response.Body)
			r.Diffs = append(r.Diffs, compareAnswer(fmt.Sprintf("exchange %d", i), refBody, r.Body)...)
		}
		some = some || len(r.Diffs) > 0
		prevRef, prevGot = renumber(ex.Response.Body), r.Body
		out = append(out, r)
	}
	if !some {
		return nil
	}
	return out
}

// passBack replaces, in a request body, the ids a client took from the previous answer (its
// cursor, or the id of its first message) with the ones annals answered.
func passBack(raw []byte, prevRef, prevGot any) []byte {
	ref, _ := prevRef.(map[string]any)
	got, _ := prevGot.(map[string]any)
	if ref == nil || got == nil {
		return raw
	}
	var req any
	if decodeNumbers(raw, &req) != nil {
		return raw
	}
	swap := map[string]any{}
	if c := ref["cursor"]; c != nil {
		swap[jsonText(c)] = got["cursor"]
	}
	if rm, _ := ref["messages"].([]any); len(rm) > 0 {
		if gm, _ := got["messages"].([]any); len(gm) > 0 {
			swap[jsonText(rm[0].(map[string]any)["id"])] = gm[0].(map[string]any)["id"]
		}
	}
	var walk func(v any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if k == "cursor" || k == "before_id" {
					if s, ok := swap[jsonText(e)]; ok {
						x[k] = s
						continue
					}
				}
				x[k] = walk(e)
			}
		case []any:
			for i := range x {
				x[i] = walk(x[i])
			}
		}
		return v
	}
	b, err := json.Marshal(walk(req))
	if err != nil {
		return raw
	}
	return b
}

// compareAnswer compares an answer as a client of the reference reads it: every field the
// reference answers must be there with the same value (annals's own extra fields are not read
// by such a client). Messages are compared by position, every field but id (annals may number
// messages differently; the ids a client passes back are checked through the walk); a cursor
// by presence; an error message by presence (annals's may be clearer).
func compareAnswer(at string, ref, got any) []string {
	var diffs []string
	var cmp func(path string, ref, got any)
	cmp = func(path string, ref, got any) {
		if len(diffs) >= 20 {
			return
		}
		switch r := ref.(type) {
		case map[string]any:
			g, ok := got.(map[string]any)
			if !ok {
				diffs = append(diffs, fmt.Sprintf("%s: %.200s, want an object", path, jsonText(got)))
				return
			}
			keys := make([]string, 0, len(r))
			for k := range r {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				gv, present := g[k]
				if !present {
					diffs = append(diffs, fmt.Sprintf("%s.%s missing (want %.200s)", path, k, jsonText(r[k])))
					continue
				}
				switch {
				case k == "cursor" && strings.Count(path, ".") == 0:
					if (r[k] == nil) != (gv == nil) {
						diffs = append(diffs, fmt.Sprintf("%s.cursor %.100s, want %.100s", path, jsonText(gv), jsonText(r[k])))
					}
				case k == "error" && r["ok"] == false:
					if s, _ := gv.(string); s == "" {
						diffs = append(diffs, fmt.Sprintf("%s.error %.100s, want a message", path, jsonText(gv)))
					}
				case k == "id" && strings.Contains(path, ".messages["):
				default:
					cmp(path+"."+k, r[k], gv)
				}
			}
		case []any:
			g, ok := got.([]any)
			if !ok {
				diffs = append(diffs, fmt.Sprintf("%s: %.200s, want a list", path, jsonText(got)))
				return
			}
			if len(g) != len(r) {
				diffs = append(diffs, fmt.Sprintf("%s: %d items, want %d", path, len(g), len(r)))
			}
			for i := 0; i < min(len(r), len(g)); i++ {
				cmp(fmt.Sprintf("%s[%d]", path, i), r[i], g[i])
			}
		default:
			if !reflect.DeepEqual(ref, got) {
				diffs = append(diffs, fmt.Sprintf("%s: %.200s, want %.200s", path, jsonText(got), jsonText(ref)))
			}
		}
	}
	cmp(at, ref, got)
	return diffs
}

// decodeNumbers decodes JSON keeping numbers exact (json.Number).
func decodeNumbers(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec.Decode(v)
}

// renumber turns the float64 numbers of a decoded value into json.Number, as decodeNumbers
// reads them, so the reference's and annals's answers compare alike.
func renumber(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if decodeNumbers(b, &out) != nil {
		return v
	}
	return out
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func first(rs []exchangeResult, n int) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Diffs...)
	}
	if len(out) > n {
		out = append(out[:n], fmt.Sprintf("... %d more", len(out)-n))
	}
	return out
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// interopDir is the shared directory of the reference's recorded answers, or the test skips.
func interopDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("ANNALS_LANIUS_INTEROP")
	if dir == "" {
		root, err := moduleRoot()
		if err != nil {
			t.Fatal(err)
		}
		dir = filepath.Join(root, "..", "shared", "interop", "lanius")
	}
	if _, err := os.Stat(filepath.Join(dir, "golden", "INDEX.json")); err != nil {
		t.Skipf("no recorded lanius answers at %s (../shared/interop/lanius from the module root, or set ANNALS_LANIUS_INTEROP): %v", dir, err)
	}
	return dir
}

// moduleRoot is the directory holding go.mod, at or above the working directory.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod at or above the working directory")
		}
		dir = parent
	}
}

// importedLanius imports the lanius database with annals's lanius importer into SQLite and
// returns a fresh copy of the result in a temporary directory. The import takes about a minute
// and a half; it is cached beside the database, keyed by the source of everything an import
// runs (the root package, importer/, sqlite/ but its view, internal/), so a change to the view
// alone reuses it.
func importedLanius(t *testing.T, src string) string {
	t.Helper()
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	h.Write([]byte(src))
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		top, _, _ := strings.Cut(rel, string(filepath.Separator))
		if d.IsDir() {
			if rel != "." && top != "importer" && top != "sqlite" && top != "internal" {
				return filepath.SkipDir
			}
			return nil
		}
		base := filepath.Base(path)
		if strings.HasSuffix(base, "_test.go") || (top == "sqlite" && strings.HasPrefix(base, "view")) ||
			!strings.HasSuffix(base, ".go") && !strings.HasSuffix(base, ".sql") {
			return nil
		}
		b, err := os.ReadFile(path)
		h.Write([]byte(rel))
		h.Write(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	cached := filepath.Join(filepath.Dir(src), "annals-"+hex.EncodeToString(h.Sum(nil))[:12]+".db")
	if _, err := os.Stat(cached); err != nil {
		ctx := context.Background()
		tmp := fmt.Sprintf("%s.tmp-%d", cached, os.Getpid())
		store, err := sqlite.Open(ctx, tmp, sqlite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		f, _ := importer.Lookup(importer.Formats(), "lanius")
		_, _, err = importer.New(store, importer.Options{Formats: []importer.Format{f}}).ImportPath(ctx, src, f)
		if cerr := store.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, suffix := range []string{"-wal", "-shm"} {
			if _, err := os.Stat(tmp + suffix); err == nil {
				t.Fatalf("%s%s remains after the store closed", tmp, suffix)
			}
		}
		if err := os.Rename(tmp, cached); err != nil {
			t.Fatal(err)
		}
	}
	dst := filepath.Join(t.TempDir(), "annals.db")
	in, err := os.Open(cached)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return dst
}

// generatedLanius builds the reference's database with gen.py's documented parameters into the
// user cache directory, keyed by the generator's and schema's hash, and returns its path. The
// recorded answers need the full database: a smaller --sessions draws other session ids.
func generatedLanius(t *testing.T, dir string) string {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not on PATH: cannot build the reference's lanius database with gen.py")
	}
	h := sha256.New()
	for _, name := range []string{"gen.py", "schema.sql"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		h.Write(b)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	out := filepath.Join(cache, "annals", "lanius-interop", hex.EncodeToString(h.Sum(nil))[:12])
	db := filepath.Join(out, "db", "lanius.db")
	if _, err := os.Stat(db); err == nil {
		return db
	}
	tmp := filepath.Join(out, fmt.Sprintf("tmp-%d", os.Getpid()))
	cmd := exec.Command(py, filepath.Join(dir, "gen.py"), "--agents", "8", "--sessions", "1000", "--messages", "100", "--seed", "20260601", "--out", tmp)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gen.py: %v: %s", err, b)
	}
	if err := os.Rename(tmp, filepath.Join(out, "db")); err != nil && !os.IsExist(err) {
		if _, statErr := os.Stat(db); statErr != nil {
			t.Fatal(err)
		}
	}
	return db
}
