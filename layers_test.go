package annals_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// module is this module's path, the prefix of its packages' import paths.
const module = "github.com/annals-dev/annals"

// TestLayers enforces the import rules of docs/ARCHITECTURE.md over every package's non-test
// files, transitively, as `go list -deps` shows them: the root imports no project package; only
// cmd/ reaches the concrete stores — not the test-support packages either (storetest,
// historytest, importer/importertest, ...: a folder named *test, which only tests and other
// test-support packages import), which are handed their store by the _test.go files that wire
// one; history reaches no provider package.
func TestLayers(t *testing.T) {
	graph := projectImports(t)
	if len(graph) < 10 {
		t.Fatalf("found %d packages; the walk is broken", len(graph))
	}
	if got := graph[module]; len(got) != 0 {
		t.Errorf("the root imports project packages %v; it must import none", got)
	}
	stores := []string{module + "/sqlite", module + "/postgres"}
	for pkg, imports := range graph {
		if !testSupport(pkg) {
			for _, imp := range imports {
				if testSupport(imp) {
					t.Errorf("%s imports the test-support package %s; only tests may", pkg, imp)
				}
			}
		}
		if slices.Contains(stores, pkg) || strings.HasPrefix(pkg, module+"/cmd/") {
			continue
		}
		// Test-support packages too: a suite is handed its store (storetest.Run's open,
		// importertest.Open's constructor); only a _test.go file wires a concrete one.
		deps := reach(graph, pkg)
		for _, s := range stores {
			if deps[s] {
				t.Errorf("%s reaches %s; only cmd/ and _test.go files may import a concrete store", pkg, s)
			}
		}
	}
	// The importer writes through annals.CaptureStore and reads other tools' files and
	// databases: none of its packages, the readers and their test support included, reaches a
	// store of annals's own.
	importers := 0
	for pkg := range graph {
		if pkg == module+"/importer" || strings.HasPrefix(pkg, module+"/importer/") {
			importers++
		}
	}
	if _, ok := graph[module+"/importer/importertest"]; importers < 30 || !ok {
		t.Errorf("found %d importer packages (importertest among them: %v); the walk is broken", importers, ok)
	}
	// The query view's contracts are a leaf over the root, so stores, history and the codec can
	// share them without importing one another. The JSON string quoter it shares with the
	// redactor is a leaf of its own (it imports nothing of the project).
	for p := range reach(graph, module+"/view") {
		if p != module && p != module+"/internal/jsonesc" {
			t.Errorf("view reaches %s; it must import only the root and internal/jsonesc", p)
		}
	}
	for p := range reach(graph, module+"/internal/jsonesc") {
		t.Errorf("internal/jsonesc reaches %s; it must import nothing of the project", p)
	}
	// The web UI is a transport: it renders what the door's history answers, and imports
	// nothing else of the project but the HTTP server's error statuses and cookie names, the
	// terminal-escape display, the SVG charts and the counts people read (internal/human).
	for _, p := range graph[module+"/web"] {
		if !slices.Contains([]string{module, module + "/history", module + "/httpapi", module + "/internal/termsafe", module + "/internal/human", module + "/svgchart"}, p) {
			t.Errorf("web imports %s; it may import only the root, history, httpapi, internal/termsafe, internal/human and svgchart", p)
		}
	}
	// How a count or a size reads to a person ("1 chat", "2 chats", "1.5 KiB") is one leaf that
	// every human-facing surface shares: it imports nothing of the project.
	if got := graph[module+"/internal/human"]; len(got) != 0 {
		t.Errorf("internal/human imports %v; it must import nothing of the project", got)
	}
	// The charts draw numbers and labels they are handed: they import nothing of the project.
	if got := graph[module+"/svgchart"]; len(got) != 0 {
		t.Errorf("svgchart imports %v; it must import nothing of the project", got)
	}
	if graph[module+"/web"] == nil {
		t.Error("the web package is missing from the walk")
	}
	for p := range reach(graph, module+"/httpapi") {
		if p == module+"/web" {
			t.Error("httpapi reaches web; the server takes the UI as an http.Handler from cmd/")
		}
	}
	// The price table of usage estimates is a leaf over the root too: history reaches it only
	// through annals.Pricer, wired in cmd/.
	for p := range reach(graph, module+"/pricing") {
		if p != module {
			t.Errorf("pricing reaches %s; it must import only the root", p)
		}
	}
	// The terminal browser is an adapter over annals.HistoryService: it reaches the history only
	// through that interface (local or over HTTP, as cmd/ hands it), so it imports no service,
	// store or transport. It may read the query language (package query, a leaf over the root)
	// so it highlights exactly the words the search index matched, and internal/human for its counts.
	for p := range reach(graph, module+"/tui") {
		if p != module && p != module+"/internal/termsafe" && p != module+"/internal/human" && p != module+"/query" {
			t.Errorf("tui reaches %s; it must import only the root, query, internal/termsafe and internal/human", p)
		}
	}
	for p := range reach(graph, module+"/query") {
		if p != module {
			t.Errorf("query reaches %s; the query language must import only the root", p)
		}
	}
	// The generated protobuf code (connect/annalsv1, proto/annals/v1) imports no project package,
	// and the HTTP server reaches no RPC protocol: cmd/ mounts the Connect handler
	// (httpapi.Config.RPC), so httpapi builds without it and connect adapts httpapi, not the
	// other way round.
	for _, gen := range []string{module + "/connect/annalsv1", module + "/connect/annalsv1/annalsv1connect"} {
		if _, ok := graph[gen]; !ok {
			t.Errorf("found no package %s; the walk is broken or the generated code is missing", gen)
		}
		for p := range reach(graph, gen) {
			if !strings.HasPrefix(p, module+"/connect/annalsv1") {
				t.Errorf("%s reaches %s; generated code imports no project package", gen, p)
			}
		}
	}
	if reach(graph, module+"/httpapi")[module+"/connect"] {
		t.Errorf("httpapi reaches connect; cmd/ mounts the Connect handler, httpapi must not import it")
	}
	deps := reach(graph, module+"/history")
	for _, p := range []string{"embed", "summarize", "pricing"} {
		if deps[module+"/"+p] {
			t.Errorf("history reaches the provider package %s; it must import none", p)
		}
	}
}

// testSupport reports whether pkg is a test-support package: its folder's name ends in "test".
func testSupport(pkg string) bool { return strings.HasSuffix(path.Base(pkg), "test") }

// projectImports maps each package of the module to the project packages its non-test files
// import.
func projectImports(t *testing.T) map[string][]string {
	t.Helper()
	graph := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != "." && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := path.Join(module, filepath.ToSlash(filepath.Dir(p)))
		if _, ok := graph[pkg]; !ok {
			graph[pkg] = nil
		}
		for _, imp := range f.Imports {
			ip, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				return err
			}
			if (ip == module || strings.HasPrefix(ip, module+"/")) && !slices.Contains(graph[pkg], ip) {
				graph[pkg] = append(graph[pkg], ip)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return graph
}

// reach is the set of project packages pkg imports, directly or not.
func reach(graph map[string][]string, pkg string) map[string]bool {
	seen := map[string]bool{}
	todo := slices.Clone(graph[pkg])
	for len(todo) > 0 {
		p := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if !seen[p] {
			seen[p] = true
			todo = append(todo, graph[p]...)
		}
	}
	return seen
}
