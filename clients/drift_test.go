package clients

import (
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
	"github.com/getkin/kin-openapi/openapi3"
)

// The clients cannot drift from docs/openapi.yaml (which httpapi/openapi_test.go holds to the
// live server) silently: every schema a client types has the document's property names and
// required properties, the error codes and ops are the document's, and every route is either
// called by both clients or left out here with the reason.

// typed are the schemas both clients type, under the document's names; inline are response
// schemas the document defines in place, by the JSON pointer of their schema.
var (
	typed = []string{"ErrorBody", "Envelope", "Totals", "Chat", "ToolCall", "Entry", "Run", "ChatRecord",
		"EntryRecord", "RunRecord", "TruncatePoint", "CaptureOp", "CreatedChat", "AppendResult",
		"TruncateResult", "CaptureResult", "IngestReport", "ChatPage", "Snippet", "SearchPage",
		"RelatedPage", "ChatView", "ChatAnswer", "Recap", "ResumeHandle", "UsageReport", "Deleted"}
	inline = map[string][]string{
		"Health":            {"paths", "/healthz", "get", "responses", "200", "content", "application/json", "schema"},
		"EmbeddingBackfill": {"paths", "/v1/admin/embeddings", "post", "responses", "200", "content", "application/json", "schema"},
	}
	// untyped are the document's schemas no client types, each with why.
	untyped = map[string]string{
		"ErrorCode":        "an enum: checked as ErrorCode below",
		"Scope":            "an enum the clients spell inline",
		"RunStatus":        "an enum the clients spell inline",
		"RunKind":          "an enum the clients spell inline",
		"Time":             "a string",
		"ToolRefusal":      "the loomcycle route's refusal (POST /v1/_history is not a client route)",
		"ReplicationOp":    "host-to-host replication (docs/REPLICATION.md), not an agent's API",
		"ReplicaLane":      "host-to-host replication",
		"ReplicateResult":  "host-to-host replication",
		"ReplicaFeed":      "host-to-host replication (annals replicate pull)",
		"LoomcycleRequest": "the loomcycle route", "LoomcycleRow": "the loomcycle route",
		"LoomcycleMeta": "the loomcycle route", "LoomcycleList": "the loomcycle route",
		"LoomcycleChat": "the loomcycle route", "LoomcycleGet": "the loomcycle route",
		"LoomcycleResume": "the loomcycle route", "LoomcycleRelated": "the loomcycle route",
	}
	// uncalled are the document's routes no client calls, each with why.
	uncalled = map[string]string{
		"POST /v1/_history":        "the loomcycle History tool's wire, for loomcycle's own clients (docs/HTTP.md)",
		"POST /v1/replicate":       "host-to-host replication, spoken by annals serve itself (docs/REPLICATION.md)",
		"POST /v1/replicate/heads": "host-to-host replication",
		"GET /v1/replicate/feed":   "host-to-host replication (annals replicate pull)",
		"POST /query":              "lanius's query view, for lanius's clients (docs/QUERYVIEW.md)",
		"GET /metrics":             "Prometheus scrapes it",
		"POST /mcp":                "MCP clients speak it (docs/MCP.md)",
		"GET /mcp":                 "MCP",
		"DELETE /mcp":              "MCP",
		"POST /annals.v1.HistoryService/{procedure}": "the Connect/gRPC API: the same ops through Connect clients (docs/CONNECT.md)",
	}
)

// schemaShape is a schema's property names and required ones.
type schemaShape struct {
	Props    []string `json:"props"`
	Required []string `json:"required"`
}

// clientShapes is what a client declares: its types, its ErrorCode and Op values, its routes.
type clientShapes struct {
	Types      map[string]schemaShape `json:"types"`
	ErrorCodes []string               `json:"error_codes"`
	Ops        []string               `json:"ops"`
	Routes     []string               `json:"routes"`
}

func loadOpenAPI(t *testing.T) map[string]any {
	t.Helper()
	// The document's own loader (as httpapi/openapi_test.go reads it), then its JSON as plain values.
	loaded, err := openapi3.NewLoader().LoadFromFile(filepath.Join("..", "docs", "openapi.yaml"))
	if err != nil {
		t.Fatalf("docs/openapi.yaml: %v", err)
	}
	b, err := loaded.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

func dig(v any, path ...string) any {
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func strings_(v any) []string {
	var out []string
	for _, x := range asList(v) {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

func asList(v any) []any { l, _ := v.([]any); return l }

func shapeOf(schema any) schemaShape {
	props, _ := dig(schema, "properties").(map[string]any)
	return schemaShape{Props: slices.Sorted(maps.Keys(props)), Required: strings_(dig(schema, "required"))}
}

// documented answers the document's shapes, error codes, ops and routes.
func documented(t *testing.T) clientShapes {
	t.Helper()
	doc := loadOpenAPI(t)
	schemas, _ := dig(doc, "components", "schemas").(map[string]any)
	want := clientShapes{Types: map[string]schemaShape{}}
	for name := range schemas {
		if !slices.Contains(typed, name) && untyped[name] == "" {
			t.Errorf("docs/openapi.yaml has a schema %s that neither client types: type it in clients/typescript/src/types.ts and clients/python/annals_client/types.py, or say in clients/drift_test.go (untyped) why not", name)
		}
	}
	for _, name := range typed {
		s, ok := schemas[name]
		if !ok {
			t.Errorf("the clients type %s, which docs/openapi.yaml no longer has", name)
			continue
		}
		want.Types[name] = shapeOf(s)
	}
	for name, ptr := range inline {
		s := dig(doc, ptr...)
		if s == nil {
			t.Errorf("docs/openapi.yaml has no schema at %s (the clients' %s)", strings.Join(ptr, "/"), name)
			continue
		}
		want.Types[name] = shapeOf(s)
	}
	want.ErrorCodes = strings_(dig(schemas, "ErrorCode", "enum"))
	want.Ops = strings_(dig(schemas, "Envelope", "properties", "op", "enum"))
	paths, _ := dig(doc, "paths").(map[string]any)
	for p, item := range paths {
		for method := range item.(map[string]any) {
			switch method {
			case "get", "post", "put", "delete", "patch":
				if tags := strings_(dig(item, method, "tags")); !slices.Contains(tags, "web") {
					want.Routes = append(want.Routes, strings.ToUpper(method)+" "+p)
				}
			}
		}
	}
	slices.Sort(want.Routes)
	return want
}

// TestTheDocumentsOpsAreTheServices keeps the document's op enum to the service's ops, which the
// clients are held to below.
func TestTheDocumentsOpsAreTheServices(t *testing.T) {
	want := documented(t)
	if got := slices.Sorted(slices.Values(history.Ops)); !slices.Equal(got, want.Ops) {
		t.Errorf("docs/openapi.yaml's Envelope.op is %v; the service's ops (history.Ops) are %v", want.Ops, got)
	}
	if v, _ := dig(loadOpenAPI(t), "info", "version").(string); v != annals.APIVersion {
		t.Errorf("docs/openapi.yaml's info.version is %q, the API's %q", v, annals.APIVersion)
	}
}

func TestTypeScriptClientMatchesTheDocument(t *testing.T) {
	compare(t, "clients/typescript", documented(t), typeScriptShapes(t))
}

func TestPythonClientMatchesTheDocument(t *testing.T) {
	python := need(t, "python3", "the Python client's types are read by importing them")
	compare(t, "clients/python", documented(t), pythonShapes(t, python))
}

func compare(t *testing.T, client string, want, got clientShapes) {
	t.Helper()
	for name, w := range want.Types {
		g, ok := got.Types[name]
		if !ok {
			t.Errorf("%s has no type %s (docs/openapi.yaml's schema)", client, name)
			continue
		}
		if !slices.Equal(g.Props, w.Props) {
			t.Errorf("%s's %s has the properties %v; docs/openapi.yaml's has %v", client, name, g.Props, w.Props)
		}
		if !slices.Equal(g.Required, w.Required) {
			t.Errorf("%s's %s requires %v; docs/openapi.yaml's requires %v", client, name, g.Required, w.Required)
		}
	}
	if !slices.Equal(got.ErrorCodes, want.ErrorCodes) {
		t.Errorf("%s's ErrorCode is %v; docs/openapi.yaml's is %v", client, got.ErrorCodes, want.ErrorCodes)
	}
	if !slices.Equal(got.Ops, want.Ops) {
		t.Errorf("%s's Op is %v; docs/openapi.yaml's is %v", client, got.Ops, want.Ops)
	}
	for _, r := range want.Routes {
		if !slices.Contains(got.Routes, r) && uncalled[r] == "" {
			t.Errorf("%s does not call %s: add it to the client (and its ROUTES), or say in clients/drift_test.go (uncalled) why not", client, r)
		}
	}
	for _, r := range got.Routes {
		if !slices.Contains(want.Routes, r) {
			t.Errorf("%s calls %s, which docs/openapi.yaml does not document", client, r)
		}
	}
}

var (
	tsInterface = regexp.MustCompile(`(?ms)^export interface (\w+) \{\n(.*?)^\}`)
	tsProp      = regexp.MustCompile(`(?m)^  (\w+)(\??):`)
	tsUnion     = regexp.MustCompile(`(?s)export type (\w+) =([^;]*);`)
	tsString    = regexp.MustCompile(`"([^"]*)"`)
	tsRoutes    = regexp.MustCompile(`(?s)export const ROUTES = \[(.*?)\]`)
)

// typeScriptShapes reads the TypeScript client's source: its interfaces (one property a line),
// its ErrorCode and Op unions and its ROUTES. The compiler checks the rest.
func typeScriptShapes(t *testing.T) clientShapes {
	t.Helper()
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("typescript", "src", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	src := read("types.ts")
	got := clientShapes{Types: map[string]schemaShape{}}
	for _, m := range tsInterface.FindAllStringSubmatch(src, -1) {
		var s schemaShape
		for _, p := range tsProp.FindAllStringSubmatch(m[2], -1) {
			s.Props = append(s.Props, p[1])
			if p[2] == "" {
				s.Required = append(s.Required, p[1])
			}
		}
		slices.Sort(s.Props)
		slices.Sort(s.Required)
		got.Types[m[1]] = s
	}
	for _, m := range tsUnion.FindAllStringSubmatch(src, -1) {
		var values []string
		for _, v := range tsString.FindAllStringSubmatch(m[2], -1) {
			values = append(values, v[1])
		}
		slices.Sort(values)
		switch m[1] {
		case "ErrorCode":
			got.ErrorCodes = values
		case "Op":
			got.Ops = values
		}
	}
	if m := tsRoutes.FindStringSubmatch(read("index.ts")); m != nil {
		for _, v := range tsString.FindAllStringSubmatch(m[1], -1) {
			got.Routes = append(got.Routes, v[1])
		}
	}
	checkRoutesAreCalled(t, "clients/typescript", got.Routes, read("client.ts"))
	return got
}

// pythonShapes imports the Python client's types and reads each TypedDict's keys.
func pythonShapes(t *testing.T, python string) clientShapes {
	t.Helper()
	const script = `
import json, typing
import annals_client, annals_client.types as t
types = {}
for name, v in vars(t).items():
    if isinstance(v, type) and hasattr(v, "__required_keys__") and not name.startswith("_"):
        types[name] = {"props": sorted(v.__annotations__), "required": sorted(v.__required_keys__)}
print(json.dumps({"types": types, "error_codes": sorted(typing.get_args(t.ErrorCode)),
                  "ops": sorted(typing.get_args(t.Op)), "routes": list(annals_client.ROUTES)}))
`
	cmd := exec.Command(python, "-c", script)
	cmd.Dir = "python"
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3 reading the client's types: %v", err)
	}
	var got clientShapes
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("python3's answer %s: %v", out, err)
	}
	for name, s := range got.Types {
		slices.Sort(s.Props)
		slices.Sort(s.Required)
		got.Types[name] = s
	}
	src, err := os.ReadFile(filepath.Join("python", "annals_client", "client.py"))
	if err != nil {
		t.Fatal(err)
	}
	checkRoutesAreCalled(t, "clients/python", got.Routes, string(src))
	return got
}

// checkRoutesAreCalled: each route a client lists is one its code sends (its path up to the
// first parameter appears as a string), so the list cannot claim more than the code does.
func checkRoutesAreCalled(t *testing.T, client string, routes []string, src string) {
	t.Helper()
	if len(routes) == 0 {
		t.Errorf("%s lists no ROUTES", client)
	}
	for _, r := range routes {
		_, path, _ := strings.Cut(r, " ")
		prefix, _, _ := strings.Cut(path, "{")
		if !strings.Contains(src, `"`+prefix) && !strings.Contains(src, "`"+prefix) && !strings.Contains(src, `f"`+prefix) {
			t.Errorf("%s lists %s in ROUTES, but its client code never sends to %s", client, r, prefix)
		}
	}
}

// TestClientVersionsAreTheAPIs keeps each client's package version (major.minor) and its
// API_VERSION to the API's (annals.APIVersion): a client names the version it speaks in its
// errors, and a release of the API is a release of both clients (docs/CLIENTS.md, Versions).
func TestClientVersionsAreTheAPIs(t *testing.T) {
	read := func(path string) string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	var pkg struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal([]byte(read("typescript/package.json")), &pkg); err != nil {
		t.Fatal(err)
	}
	versions := map[string]string{
		"clients/typescript/package.json version":      pkg.Version,
		"clients/python/pyproject.toml version":        firstMatch(read("python/pyproject.toml"), `(?m)^version = "([^"]+)"`),
		"clients/python/annals_client __version__":     firstMatch(read("python/annals_client/__init__.py"), `__version__ = "([^"]+)"`),
		"clients/typescript/src/errors.ts API_VERSION": firstMatch(read("typescript/src/errors.ts"), `API_VERSION = "([^"]+)"`) + ".x",
		"clients/python/annals_client API_VERSION":     firstMatch(read("python/annals_client/errors.py"), `API_VERSION = "([^"]+)"`) + ".x",
	}
	for what, v := range versions {
		if !strings.HasPrefix(v, annals.APIVersion+".") {
			t.Errorf("%s is %q; the API's version is %s, so it must be %s.x", what, v, annals.APIVersion, annals.APIVersion)
		}
	}
}

func firstMatch(s, re string) string {
	if m := regexp.MustCompile(re).FindStringSubmatch(s); m != nil {
		return m[1]
	}
	return ""
}
