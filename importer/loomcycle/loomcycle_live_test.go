package loomcycle_test

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer"
	"github.com/annals-dev/annals/importer/importertest"
	"github.com/annals-dev/annals/importer/loomcycletest"
	"github.com/annals-dev/annals/sqlite"
)

// A loomcycle database imported while a run is still going, then again once it has gone on,
// ends up as the whole database imported once: a tool call imported before its result lands
// gets the result, and a reply imported mid-stream gets the rest of its text.
func TestLoomcycleLiveRunImportedTwiceEndsAsOnce(t *testing.T) {
	// With two sessions of four turns, session 1's last run is still awaiting input.
	opts := loomcycletest.Options{Sessions: 2, Turns: 4}
	dir := t.TempDir()
	full := filepath.Join(dir, "full.db")
	db, _, err := loomcycletest.GenerateSQLite(full, opts)
	if err != nil {
		t.Fatal(err)
	}
	live := loomcycletest.RunID(1, opts.Turns-1)
	cuts := map[string]string{
		"after its last tool call":   `SELECT MAX(seq) FROM events WHERE run_id = ? AND type = 'tool_call'`,
		"after its first text delta": `SELECT MIN(seq) FROM events WHERE run_id = ? AND type = 'text'`,
	}
	cutAt := map[string]int64{}
	for name, q := range cuts {
		var seq sql.NullInt64
		if err := db.QueryRow(q, live).Scan(&seq); err != nil || !seq.Valid {
			t.Fatalf("%s: no such event in run %s (%v): the generator changed", name, live, err)
		}
		cutAt[name] = seq.Int64
	}
	db.Close()
	want := importertest.TakeSnapshot(t, importOnce(t, full))
	for name, seq := range cutAt {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "live.db")
			importertest.CopyFile(t, full, path)
			saved := cutEvents(t, path, loomcycletest.SessionID(1), seq)
			store := openDB(t)
			im := importertest.NewImporter(store, importer.Options{Formats: []importer.Format{importertest.Format(t, "loomcycle")}})
			importertest.ImportAll(t, im, path)
			restoreEvents(t, path, saved)
			importertest.ImportAll(t, im, path)
			got := importertest.TakeSnapshot(t, store)
			for id, es := range want.Entries {
				g, w := entryFacts(got.Entries[id]), entryFacts(es)
				for i := 0; i < max(len(g), len(w)); i++ {
					if i >= len(g) || i >= len(w) || g[i] != w[i] {
						t.Errorf("%s: %d entries imported while live, then again; %d imported once; first difference at %d:\n%v\nwant\n%v", id, len(g), len(w), i, at(g, i), at(w, i))
						break
					}
				}
			}
		})
	}
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "(none)"
}

func importOnce(t *testing.T, path string) *sqlite.DB {
	t.Helper()
	store := openDB(t)
	importertest.ImportAll(t, importertest.NewImporter(store, importer.Options{Formats: []importer.Format{importertest.Format(t, "loomcycle")}}), path)
	return store
}

// entryFacts is what a reader sees of entries, one line each.
func entryFacts(es []*annals.Entry) []string {
	var out []string
	for _, e := range es {
		s := fmt.Sprintf("%d %s %s %q %q %s %s", e.Seq, e.ID, e.Kind, e.Text, e.Reasoning, e.Time.Format(time.RFC3339Nano), e.Metadata)
		if e.Tool != nil {
			s += fmt.Sprintf(" tool %s %s %q %s", e.Tool.Name, e.Tool.CallID, e.Tool.Result, e.Tool.Outcome)
		}
		out = append(out, s)
	}
	return out
}

// cutEvents removes the events of session sid after seq, as if the runtime had not written
// them yet, and returns them.
func cutEvents(t *testing.T, path, sid string, seq int64) [][]any {
	t.Helper()
	db := openLC(t, path)
	defer db.Close()
	rows, err := db.Query(`SELECT seq, session_id, run_id, ts, type, payload FROM events WHERE session_id = ? AND seq > ? ORDER BY seq`, sid, seq)
	if err != nil {
		t.Fatal(err)
	}
	var saved [][]any
	for rows.Next() {
		var seq, ts int64
		var sess, run, typ string
		var payload []byte
		if err := rows.Scan(&seq, &sess, &run, &ts, &typ, &payload); err != nil {
			t.Fatal(err)
		}
		saved = append(saved, []any{seq, sess, run, ts, typ, payload})
	}
	rows.Close()
	if len(saved) == 0 {
		t.Fatal("nothing after the cut")
	}
	if _, err := db.Exec(`DELETE FROM events WHERE session_id = ? AND seq > ?`, sid, seq); err != nil {
		t.Fatal(err)
	}
	return saved
}

// restoreEvents writes the cut events back, as the runtime goes on, and moves the file's time
// on so the import sees it changed.
func restoreEvents(t *testing.T, path string, saved [][]any) {
	t.Helper()
	db := openLC(t, path)
	for _, r := range saved {
		if _, err := db.Exec(`INSERT INTO events (seq, session_id, run_id, ts, type, payload) VALUES (?, ?, ?, ?, ?, ?)`, r...); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
}

func openLC(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// The same on a PostgreSQL deployment, where the runtime appends its events with seqs of its
// own: what it wrote after the first import lands on the entries it finishes.
func TestLoomcyclePostgresLiveRunImportedTwiceEndsAsOnce(t *testing.T) {
	opts := loomcycletest.Options{Sessions: 2, Turns: 4}
	dsn, _ := lcPostgres(t, opts)
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var cut int64
	if err := db.QueryRow(`SELECT MAX(seq) FROM events WHERE run_id = $1 AND type = 'tool_call'`, loomcycletest.RunID(1, opts.Turns-1)).Scan(&cut); err != nil {
		t.Fatalf("no tool call in the live run (%v): the generator changed", err)
	}
	rows, err := db.Query(`SELECT session_id, run_id, ts, type, payload FROM events WHERE session_id = $1 AND seq > $2 ORDER BY seq`, loomcycletest.SessionID(1), cut)
	if err != nil {
		t.Fatal(err)
	}
	var later [][]any
	for rows.Next() {
		var sid, run, typ string
		var ts time.Time
		var payload []byte
		if err := rows.Scan(&sid, &run, &ts, &typ, &payload); err != nil {
			t.Fatal(err)
		}
		later = append(later, []any{sid, run, ts, typ, payload})
	}
	rows.Close()
	if _, err := db.Exec(`DELETE FROM events WHERE session_id = $1 AND seq > $2`, loomcycletest.SessionID(1), cut); err != nil {
		t.Fatal(err)
	}
	lc := importertest.Format(t, "loomcycle")
	store := openDB(t)
	im := importertest.NewImporter(store, importer.Options{Formats: []importer.Format{lc}})
	importertest.ImportAll(t, im, dsn)
	for _, r := range later {
		// As the runtime appends: the events table's own sequence numbers them.
		if _, err := db.Exec(`INSERT INTO events (session_id, run_id, ts, type, payload) VALUES ($1, $2, $3, $4, $5)`, r...); err != nil {
			t.Fatalf("appending as the runtime does: %v", err)
		}
	}
	importertest.ImportAll(t, im, dsn)
	once := openDB(t)
	importertest.ImportAll(t, importertest.NewImporter(once, importer.Options{Formats: []importer.Format{lc}}), dsn)
	want, got := importertest.TakeSnapshot(t, once), importertest.TakeSnapshot(t, store)
	for id, es := range want.Entries {
		g, w := entryFacts(got.Entries[id]), entryFacts(es)
		for i := 0; i < max(len(g), len(w)); i++ {
			if i >= len(g) || i >= len(w) || g[i] != w[i] {
				t.Errorf("%s: first difference at %d:\n%v\nwant\n%v", id, i, at(g, i), at(w, i))
				break
			}
		}
	}
}
