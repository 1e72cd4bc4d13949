package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/httpapi"
	"github.com/annals-dev/annals/mcp"
	"github.com/annals-dev/annals/web"
)

// openAPIPath is the document the test holds the server to.
const openAPIPath = "../docs/openapi.yaml"

// docs/openapi.yaml and the server agree both ways: every route the server registers (with
// every optional part mounted: MCP, the web UI, the Connect API) is documented, and every
// documented operation, sent each of its request examples against the live server, answers a
// documented status whose headers and body validate against what is documented (an example's
// x-status is the status it must get; without one, a 2xx). Unauthenticated calls of every
// route that needs a key answer its documented 401.
func TestOpenAPIDocumentMatchesTheServer(t *testing.T) {
	ctx := context.Background()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromFile(openAPIPath)
	if err != nil {
		t.Fatalf("load %s: %v", openAPIPath, err)
	}
	// Examples of refusals break their schema on purpose; the valid ones are checked as requests below.
	if err := doc.Validate(ctx, openapi3.DisableExamplesValidation()); err != nil {
		t.Fatalf("%s is not a valid OpenAPI document: %v", openAPIPath, err)
	}
	if doc.Info.Version != annals.APIVersion {
		t.Errorf("%s says API version %s; annals.APIVersion is %s", openAPIPath, doc.Info.Version, annals.APIVersion)
	}
	ui, err := web.New(web.Config{})
	if err != nil {
		t.Fatal(err)
	}
	f := newTwoTenants(t, func(c *httpapi.Config) {
		c.MCP = mcp.New(mcp.Config{}).HTTPHandler(mcp.HTTPOptions{})
		c.Web = ui
		c.Embeddings = c.Service.(history.Backfiller)
		// Every route's 401 is checked, more failures than one address may make by default.
		c.AuthFailures = -1
	})
	f.must(http.StatusOK, "POST", "/v1/ingest", f.keyAdmin, `{"type":"chat","id":"gone","tenant_id":"A","user_id":"ua1"}`)

	t.Run("every route is documented", func(t *testing.T) {
		var missing []string
		for _, pattern := range f.srv.Routes() {
			method, path, _ := strings.Cut(pattern, " ")
			if !documented(doc, method, path) {
				missing = append(missing, pattern)
			}
		}
		if len(missing) > 0 {
			t.Errorf("routes the server registers that %s does not document (add each under paths:, with its parameters, "+
				"request body and every status it answers, and a request example the test can send):\n  %s",
				openAPIPath, strings.Join(missing, "\n  "))
		}
	})

	// The requests go to this test's server, not the documented default address.
	doc.Servers = openapi3.Servers{{URL: f.url}}
	router, err := legacy.NewRouter(doc, openapi3.DisableExamplesValidation())
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]string{"": f.keyA, "member": f.keyA, "admin": f.keyAdmin}
	for _, path := range doc.Paths.InMatchingOrder() {
		item := doc.Paths.Value(path)
		for method, op := range item.Operations() {
			t.Run(method+" "+path, func(t *testing.T) {
				switch op.Extensions["x-protocol"] {
				case "mcp":
					// MCP's answers are its protocol's; its own conformance suite runs in .ci/run.
					checkUnauthenticated(t, doc, router, f.url, method, path, op)
					return
				case "web":
					// The web UI's pages are HTML behind browser sessions; its chromedp tests
					// (web/) drive them. Documented so that every route is.
					return
				}
				opKey, _ := op.Extensions["x-key"].(string)
				for _, ex := range requestExamples(t, op, path) {
					if ex.key == "" {
						ex.key = opKey
					}
					key := keys[ex.key]
					if op.Security != nil && len(*op.Security) == 1 && len((*op.Security)[0]) == 0 {
						key = ""
					}
					if ex.x != nil {
						ex.contentType = "application/json"
					}
					checkExchange(t, doc, router, f.url, method, ex, key)
				}
				if op.Security == nil || len(*op.Security) != 1 || len((*op.Security)[0]) != 0 {
					checkUnauthenticated(t, doc, router, f.url, method, path, op)
				}
			})
		}
	}
}

// documented reports whether the document has an operation for a route pattern of the server's
// mux: the same path, "{x}" segments matching any parameter, "{$}" meaning the path itself, and
// a path ending in "/" (everything under it) matching a documented path beneath it.
func documented(doc *openapi3.T, method, pattern string) bool {
	pattern = strings.TrimSuffix(pattern, "{$}")
	re := regexp.QuoteMeta(pattern)
	re = regexp.MustCompile(`\\\{[^}]*\\\}`).ReplaceAllString(re, `\{[^}/]+\}`)
	if strings.HasSuffix(pattern, "/") && pattern != "/" {
		re += ".*"
	}
	match := regexp.MustCompile("^" + re + "$")
	for path, item := range doc.Paths.Map() {
		if match.MatchString(path) && item.GetOperation(method) != nil {
			return true
		}
	}
	return false
}

// exchange is one request built from a documented example.
type exchange struct {
	name, url, contentType, key string
	body                        []byte
	status                      int
	// invalid: the example is meant to break the request's schema (its status is a refusal).
	invalid bool
	x       map[string]any
}

// requestExamples builds a request for each example of the operation's request body (or one
// request for an operation without a body), its path parameters from their examples.
func requestExamples(t *testing.T, op *openapi3.Operation, path string) []exchange {
	t.Helper()
	params := map[string]string{}
	query := url.Values{}
	for _, p := range op.Parameters {
		v := exampleValue(p.Value.Example, p.Value.Examples)
		if v == "" {
			continue
		}
		switch p.Value.In {
		case "path":
			params[p.Value.Name] = v
		case "query":
			query.Set(p.Value.Name, v)
		}
	}
	base := func(override string) string {
		u := path
		for k, v := range params {
			if k == "id" && override != "" {
				v = override
			}
			u = strings.ReplaceAll(u, "{"+k+"}", url.PathEscape(v))
		}
		if len(query) > 0 {
			u += "?" + query.Encode()
		}
		return u
	}
	if op.RequestBody == nil {
		return []exchange{{name: "no body", url: base("")}}
	}
	var out []exchange
	for ct, media := range op.RequestBody.Value.Content {
		names := make([]string, 0, len(media.Examples))
		for name := range media.Examples {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			ex := media.Examples[name].Value
			e := exchange{name: name, contentType: ct}
			if s, ok := ex.Extensions["x-status"].(float64); ok {
				e.status = int(s)
			}
			e.invalid, _ = ex.Extensions["x-invalid-request"].(bool)
			e.key, _ = ex.Extensions["x-key"].(string)
			id, _ := ex.Extensions["x-id"].(string)
			e.url = base(id)
			if s, ok := ex.Value.(string); ok && ct != "application/json" {
				e.body = []byte(s)
			} else {
				b, err := json.Marshal(ex.Value)
				if err != nil {
					t.Fatal(err)
				}
				e.body = b
			}
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		t.Errorf("%s has a request body but no example the test can send", path)
	}
	return out
}

func exampleValue(example any, examples openapi3.Examples) string {
	if example != nil {
		return fmt.Sprint(example)
	}
	names := make([]string, 0, len(examples))
	for n := range examples {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprint(examples[names[0]].Value.Value)
}

// checkExchange sends one request and validates it and its answer against the document.
func checkExchange(t *testing.T, doc *openapi3.T, router routers.Router, base, method string, ex exchange, key string) {
	t.Helper()
	req, err := http.NewRequest(method, base+ex.url, bytes.NewReader(ex.body))
	if err != nil {
		t.Fatal(err)
	}
	if ex.contentType != "" {
		req.Header.Set("Content-Type", ex.contentType)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	route, pathParams, err := router.FindRoute(req)
	if err != nil {
		t.Fatalf("%s: the document has no route for %s %s: %v", ex.name, method, ex.url, err)
	}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: pathParams, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc,
			// JSON Lines bodies are text to the document; the capture format's own tests hold them.
			ExcludeRequestBody: ex.contentType != "application/json"}}
	if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil && !ex.invalid && ex.status == 0 {
		t.Errorf("%s: the example request does not match the document: %v", ex.name, err)
	}
	req.Body = io.NopCloser(bytes.NewReader(ex.body))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	switch {
	case ex.status != 0 && res.StatusCode != ex.status:
		t.Errorf("%s: %s %s answered %d, the example says %d: %.300s", ex.name, method, ex.url, res.StatusCode, ex.status, body)
	case ex.status == 0 && res.StatusCode/100 != 2:
		t.Errorf("%s: %s %s answered %d, want a 2xx: %.300s", ex.name, method, ex.url, res.StatusCode, body)
	}
	validateAnswer(t, ex.name, in, res, body)
}

func validateAnswer(t *testing.T, name string, in *openapi3filter.RequestValidationInput, res *http.Response, body []byte) {
	t.Helper()
	if res.Header.Get(annals.APIVersionHeader) != annals.APIVersion {
		t.Errorf("%s: the answer's %s is %q, want %q", name, annals.APIVersionHeader, res.Header.Get(annals.APIVersionHeader), annals.APIVersion)
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: res.StatusCode, Header: res.Header,
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true}}
	out.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		t.Errorf("%s: the answer (%d %s) does not match the document: %v\nbody: %.500s", name, res.StatusCode, res.Header.Get("Content-Type"), err, body)
	}
}

// checkUnauthenticated calls a route that needs a key without one: its documented 401.
func checkUnauthenticated(t *testing.T, doc *openapi3.T, router routers.Router, base, method, path string, op *openapi3.Operation) {
	t.Helper()
	u := regexp.MustCompile(`\{[^}]+\}`).ReplaceAllString(path, "x")
	req, _ := http.NewRequest(method, base+u, strings.NewReader("{}"))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer not-a-key")
	route, pathParams, err := router.FindRoute(req)
	if err != nil {
		t.Fatalf("no route for %s %s: %v", method, u, err)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusUnauthorized {
		t.Errorf("%s %s with a bad key: %d, want 401: %.200s", method, u, res.StatusCode, body)
	}
	if op.Extensions["x-protocol"] != nil {
		return // its error body is its protocol's
	}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: pathParams, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}}
	validateAnswer(t, "bad key", in, res, body)
}
