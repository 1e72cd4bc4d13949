package importer

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// Defaults of WatchOptions.
const (
	DefaultDebounce = time.Second
	DefaultRescan   = 5 * time.Minute
)

// WatchOptions configure Watch.
type WatchOptions struct {
	// Home is the directory the formats' default locations are under. Empty means none: only
	// Paths are watched.
	Home string
	// Paths are more files or directories to watch (what `annals import --watch PATH` names).
	Paths []string
	// Debounce is how long a file must stay unchanged before it is imported, so that a tool
	// writing a burst of lines is read once; 0 means DefaultDebounce.
	Debounce time.Duration
	// Rescan is how often every location is scanned in full, to catch what the file system
	// did not report (and sources that disappeared); 0 means DefaultRescan, <0 never.
	Rescan time.Duration
	// OnReport, when set, receives the report of every import Watch runs, from Watch's
	// goroutine. The first one is the initial full import.
	OnReport func(*Report)
}

// Watch imports every source at the default locations (and opts.Paths), then keeps watching
// them with fsnotify: a file that is created or grows is imported once it has been quiet for
// opts.Debounce, and a file that disappears is marked gone in the import state (its chats stay).
// It returns when ctx is done (with nil), or when the watcher cannot start.
//
// Watch owns im while it runs: imports are serialised on its goroutine. `annals import --watch`
// runs it in the foreground; `annals serve` runs it in the background when its config says
// `import: {watch: true}`.
func Watch(ctx context.Context, im *Importer, opts WatchOptions) error {
	if opts.Debounce <= 0 {
		opts.Debounce = DefaultDebounce
	}
	if opts.Rescan == 0 {
		opts.Rescan = DefaultRescan
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("import watch: starting the file watcher: %w", err)
	}
	defer w.Close()
	wt := &watcher{im: im, opts: opts, fw: w, watched: map[string]bool{}, pending: map[string]time.Time{}}
	wt.full(ctx)

	tick := time.NewTicker(opts.Debounce / 4)
	defer tick.Stop()
	var rescan <-chan time.Time
	if opts.Rescan > 0 {
		t := time.NewTicker(opts.Rescan)
		defer t.Stop()
		rescan = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			wt.event(ev)
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			im.opts.Logger.Warn("import watch: file watcher error", "err", annals.ErrorDetail(err))
		case <-tick.C:
			wt.due(ctx)
		case <-rescan:
			wt.full(ctx)
		}
	}
}

type watcher struct {
	im   *Importer
	opts WatchOptions
	fw   *fsnotify.Watcher
	// roots are directories watched recursively; shallow are watched alone (the home
	// directory, a parent waiting for a root to appear).
	roots   []string
	watched map[string]bool
	pending map[string]time.Time
	// afterMiss, set only by tests, runs when a root was found missing, before the nearest
	// existing ancestor is watched: the window in which a racing MkdirAll goes unseen.
	afterMiss func(root string)
}

// full discovers and imports everything, and (re)establishes the watches.
func (wt *watcher) full(ctx context.Context) {
	var cands []Candidate
	var roots []string
	if wt.opts.Home != "" {
		cands, roots = wt.im.Discover(wt.opts.Home)
	}
	if len(wt.opts.Paths) > 0 {
		more, _, err := wt.im.Resolve(wt.opts.Paths, nil)
		if err != nil {
			wt.im.opts.Logger.Warn("import watch: resolving paths", "err", annals.ErrorDetail(err))
		}
		cands = append(cands, more...)
		for _, p := range wt.opts.Paths {
			if abs, err := filepath.Abs(p); err == nil {
				if fi, err := os.Stat(abs); err == nil && !fi.IsDir() {
					abs = filepath.Dir(abs)
				}
				roots = append(roots, abs)
			}
		}
	}
	for _, r := range roots {
		wt.addRoot(r)
	}
	// Parents of sources outside the recursive roots (Aider's files in repositories).
	for _, c := range cands {
		if !wt.underRoot(c.Path) {
			wt.add(filepath.Dir(c.Path))
		}
	}
	rep, err := wt.im.Import(ctx, cands)
	if err != nil && ctx.Err() == nil {
		wt.im.opts.Logger.Warn("import watch: import failed", "err", annals.ErrorDetail(err))
	}
	if rep != nil && wt.opts.OnReport != nil {
		wt.opts.OnReport(rep)
	}
}

// addRoot records root as a recursive root and watches it.
func (wt *watcher) addRoot(root string) {
	root = filepath.Clean(root)
	if root == filepath.Clean(wt.opts.Home) || root == string(filepath.Separator) {
		// The home directory itself is never watched recursively.
		wt.add(root)
		return
	}
	for _, r := range wt.roots {
		if r == root {
			wt.watchRoot(root, false)
			return
		}
	}
	wt.roots = append(wt.roots, root)
	wt.watchRoot(root, false)
}

// watchRoot watches root and every directory beneath it; a root that does not exist yet is
// waited for by watching its nearest existing ancestor. With queue, the files already in the
// tree are queued too: they may have been written before the watch was in place.
func (wt *watcher) watchRoot(root string, queue bool) {
	for {
		if _, err := os.Stat(root); err == nil {
			break
		}
		// Whatever the root holds once it appears was written after the discovery that found it
		// missing, so it is queued whatever the caller asked.
		queue = true
		if wt.afterMiss != nil {
			wt.afterMiss(root)
		}
		dir := nearestExisting(root)
		if dir == "" {
			return
		}
		wt.add(dir)
		// The next directory toward root may have been created after the look above and
		// before the watch was in place (a tool's MkdirAll races us): its Create event is then
		// lost, so look again; once it is still missing with the watch in place, its event
		// will come.
		if _, err := os.Stat(childToward(dir, root)); err != nil {
			return
		}
	}
	wt.addTree(root)
	if queue {
		wt.queueTree(root)
	}
}

// nearestExisting returns the closest ancestor of p that exists, or "" when none does.
func nearestExisting(p string) string {
	for dir := filepath.Dir(p); ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(dir); err == nil {
			return dir
		}
		if dir == filepath.Dir(dir) {
			return ""
		}
	}
}

// childToward returns the entry of dir on the way down to p, which lies beneath dir.
func childToward(dir, p string) string {
	for filepath.Dir(p) != dir && filepath.Dir(p) != p {
		p = filepath.Dir(p)
	}
	return p
}

func (wt *watcher) queueTree(dir string) {
	_ = filepath.WalkDir(dir, func(q string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			wt.pending[q] = time.Now()
		}
		return nil
	})
}

func (wt *watcher) addTree(dir string) {
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			wt.add(p)
		}
		return nil
	})
}

func (wt *watcher) add(dir string) {
	if wt.watched[dir] {
		return
	}
	if err := wt.fw.Add(dir); err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			wt.im.opts.Logger.Warn("import watch: cannot watch a directory", "dir", dir, "err", annals.ErrorDetail(err))
		}
		return
	}
	wt.watched[dir] = true
}

func (wt *watcher) underRoot(p string) bool {
	for _, r := range wt.roots {
		if p == r || strings.HasPrefix(p, r+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// event records a change; directories that appear under a root are watched at once, and what
// is already inside them is queued.
func (wt *watcher) event(ev fsnotify.Event) {
	p := filepath.Clean(ev.Name)
	if ev.Has(fsnotify.Create) {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			if wt.underRoot(p) {
				wt.addTree(p)
				wt.queueTree(p)
			} else {
				// A root that did not exist may just have been created, or a directory on
				// the way to it.
				for _, r := range wt.roots {
					if strings.HasPrefix(r, p+string(filepath.Separator)) {
						wt.watchRoot(r, true)
					}
				}
			}
			return
		}
	}
	if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		if wt.watched[p] {
			delete(wt.watched, p)
		}
	}
	wt.pending[p] = time.Now()
}

// due imports (or marks gone) the paths that have been quiet for the debounce time.
func (wt *watcher) due(ctx context.Context) {
	now := time.Now()
	var ready []string
	for p, t := range wt.pending {
		if now.Sub(t) >= wt.opts.Debounce {
			ready = append(ready, p)
		}
	}
	if len(ready) == 0 {
		return
	}
	sort.Strings(ready)
	total := newReport()
	for _, p := range ready {
		delete(wt.pending, p)
		fi, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			if gone, err := wt.im.MarkGone(ctx, p); err != nil {
				wt.im.opts.Logger.Warn("import watch: marking a source gone", "path", p, "err", annals.ErrorDetail(err))
			} else if gone {
				total.Gone++
			}
			continue
		}
		if err != nil || fi.IsDir() {
			continue
		}
		f := wt.formatFor(p)
		if f == nil {
			continue
		}
		rep, ok, err := wt.im.ImportPath(ctx, p, f)
		if err != nil && ctx.Err() == nil {
			wt.im.opts.Logger.Warn("import watch: import failed", "path", p, "err", annals.ErrorDetail(err))
		}
		if ok {
			total.Merge(rep)
		}
	}
	if wt.opts.OnReport != nil && (total.Done > 0 || total.Gone > 0) {
		wt.opts.OnReport(total)
	}
}

// formatFor returns the format whose default location holds p (and that accepts it), or for a
// path under opts.Paths, any format that accepts it.
func (wt *watcher) formatFor(p string) reader.Format {
	if wt.opts.Home != "" {
		for _, f := range wt.im.opts.Formats {
			for _, pat := range f.DefaultPaths(wt.opts.Home) {
				if MatchGlob(pat, p) && detect(f, p) {
					return f
				}
			}
		}
	}
	for _, root := range wt.opts.Paths {
		abs, err := filepath.Abs(root)
		if err != nil {
			continue
		}
		if p == abs || strings.HasPrefix(p, abs+string(filepath.Separator)) {
			return detectAmong(wt.im.opts.Formats, p)
		}
	}
	return nil
}
