package httpapi_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals/httpapi"
	"github.com/annals-dev/annals/internal/strictjson"
	"github.com/annals-dev/annals/mcp"
)

// withMCP serves MCP at /mcp over the server's own service.
func withMCP() option {
	return func(c *httpapi.Config) {
		c.MCP = mcp.New(mcp.Config{}).HTTPHandler(mcp.HTTPOptions{})
	}
}

// deepArgs is a JSON value nested n levels: objects and arrays in turn.
func deepArgs(n int) string {
	var open, close strings.Builder
	for i := range n {
		if i%2 == 0 {
			open.WriteString(`{"k":`)
			close.WriteString("}")
		} else {
			open.WriteString("[")
			close.WriteString("]")
		}
	}
	c := []byte(close.String())
	for i, j := 0, len(c)-1; i < j; i, j = i+1, j-1 {
		c[i], c[j] = c[j], c[i]
	}
	return open.String() + "1" + string(c)
}

// routeBodies are bodies for every route that reads one, each carrying value somewhere a
// caller may put arbitrary JSON (or, for the routes with fixed shapes, in a field of its own).
func routeBodies(value string) map[string]string {
	entry := `{"id":"deep-%d","kind":"tool","tool":{"name":"t","arguments":` + value + `}}`
	return map[string]string{
		"/v1/history":                   `{"op":"list","filter":` + value + `}`,
		"/v1/_history":                  `{"op":"list","extra":` + value + `}`,
		"/v1/sessions":                  `{"id":"deep-chat","title":"t","attributes":{"a":` + value + `}}`,
		"/v1/sessions/a1/entries":       `{"entries":[` + fmt.Sprintf(entry, 1) + `]}`,
		"/v1/sessions/a1/entries#jsonl": fmt.Sprintf(entry, 2) + "\n" + fmt.Sprintf(entry, 3) + "\n",
		"/v1/sessions/a1/truncate":      `{"seq":9,"x":` + value + `}`,
		"/v1/runs":                      `{"chat_id":"a1","id":"a1/deep","status":"completed","x":` + value + `}`,
		"/v1/capture":                   `{"ops":[{"append":{"chat_id":"a1","entries":[` + fmt.Sprintf(entry, 4) + `]}}]}`,
		"/v1/ingest":                    `{"type":"entry","chat_id":"a1","id":"deep-5","kind":"tool","tool":{"name":"t","arguments":` + value + `}}` + "\n",
		"/query":                        `{"kind":"sessions","x":` + value + `}`,
		"/mcp":                          `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"},"x":` + value + `}}`,
	}
}

func postAs(t *testing.T, url, key, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

func TestEveryRouteRefusesNestingPastTheBoundByName(t *testing.T) {
	f := newTwoTenants(t, withMCP())
	bound := fmt.Sprintf("at most %d levels are allowed", strictjson.MaxDepth)
	start := time.Now()
	for _, value := range []string{deepArgs(strictjson.MaxDepth + 1), strings.Repeat("[", 200<<10)} {
		for route, body := range routeBodies(value) {
			path, _, _ := strings.Cut(route, "#")
			status, answer := postAs(t, f.url+path, f.keyAdmin, body)
			if status != http.StatusBadRequest || !strings.Contains(answer, bound) {
				t.Errorf("%s (%d bytes): %d %.300s, want 400 naming the bound", route, len(body), status, answer)
			}
		}
	}
	// The 200 KB body took minutes and gigabytes on one route; all of these together
	// must be refused at once.
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("refusing the deep bodies took %s", took)
	}
}

func TestDeepButAllowedBodiesAreServed(t *testing.T) {
	f := newTwoTenants(t)
	// The capture envelope nests the arguments 7 levels down; stay just inside the bound.
	value := deepArgs(strictjson.MaxDepth - 8)
	for _, route := range []string{"/v1/sessions/a1/entries", "/v1/sessions/a1/entries#jsonl", "/v1/capture", "/v1/ingest"} {
		path, _, _ := strings.Cut(route, "#")
		if status, answer := postAs(t, f.url+path, f.keyAdmin, routeBodies(value)[route]); status != http.StatusOK {
			t.Errorf("%s: %d %.300s", route, status, answer)
		}
	}
	status, answer := postAs(t, f.url+"/v1/history", f.keyAdmin, `{"op":"get","session_id":"a1","limit":20}`)
	if status != http.StatusOK || strings.Count(answer, `"deep-`) != 5 {
		t.Errorf("the deep entries read back: %d %.500s", status, answer)
	}
}
