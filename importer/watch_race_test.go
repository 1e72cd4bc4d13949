package importer

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// A root's directories created between the watcher's look for the root and its watch on the
// nearest ancestor (a tool's MkdirAll racing the Create event of the first one) raise no event;
// the watcher must find them itself, or the root stays unwatched until the next full rescan.
// Seen in CI: a rollout under a new ~/.codex was not imported within 10 s.
func TestWatchRootFindsDirectoriesCreatedWhileItLooked(t *testing.T) {
	home := t.TempDir()
	root := filepath.Join(home, ".codex", "sessions")
	deep := filepath.Join(root, "2025", "06", "01")
	file := filepath.Join(deep, "rollout.jsonl")
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer fw.Close()
	wt := &watcher{im: &Importer{}, fw: fw, roots: []string{root}, watched: map[string]bool{}, pending: map[string]time.Time{}}
	raced := false
	wt.afterMiss = func(string) {
		if raced {
			return
		}
		raced = true
		if err := os.MkdirAll(deep, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// As the full scan calls it: not asked to queue, since the scan imports what it discovered;
	// but the discovery found the root missing, so what the race wrote must be queued.
	wt.watchRoot(root, false)
	if !raced {
		t.Fatal("the root was not missing at the first look")
	}
	for _, dir := range []string{root, deep} {
		if !wt.watched[dir] {
			t.Errorf("%s is not watched; watched: %v", dir, wt.watched)
		}
	}
	if _, ok := wt.pending[file]; !ok {
		t.Errorf("the file written in the race is not queued; pending: %v", wt.pending)
	}
}

func TestChildToward(t *testing.T) {
	for _, c := range []struct{ dir, p, want string }{
		{"/h", "/h/.codex/sessions", "/h/.codex"},
		{"/h/.codex", "/h/.codex/sessions", "/h/.codex/sessions"},
		{"/", "/a/b", "/a"},
	} {
		if got := childToward(c.dir, c.p); got != c.want {
			t.Errorf("childToward(%q, %q) = %q, want %q", c.dir, c.p, got, c.want)
		}
	}
}
