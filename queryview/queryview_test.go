package queryview_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/queryview"
	"github.com/annals-dev/annals/view"
)

// The store-backed behaviour is in historytest (group QueryView); these are the pure parts:
// every refusal below happens before the store is touched, so the View's service has none.

func TestQueryRefusesBadRequestsBeforeTheStore(t *testing.T) {
	v := queryview.New(history.New(history.Config{}))
	ctx := annals.NewContextWithPrincipal(context.Background(), &annals.Principal{TenantID: "A", UserID: "u", Role: annals.RoleMember, Scopes: []annals.Scope{annals.ScopeTenant}})
	for _, tc := range []struct {
		body string
		want string // a fragment of the message
	}{
		{``, "empty"},
		{`{"kind":"agents"} x`, "more than one"},
		{`"agents"`, "JSON object"},
		{`{"kind":["agents"]}`, `"kind" must be a string`},
		{`{"kind":"agent"}`, `unknown kind "agent"`},
		{`{"kind":"agents","session":"a","annals":{"strict":true}}`, `unknown field "session" (kind agents takes: kind, scope, limit, annals)`},
		{`{"kind":"agents","annals":{"strict":"yes"}}`, `"annals.strict"`},
		{`{"kind":"sessions","agent":7}`, `"agent" must be a string`},
		{`{"kind":"transcript","session":""}`, "session is required"},
		{`{"kind":"transcript","session":"a","select":{"reasoning":"no"},"annals":{"strict":true}}`, `"select.reasoning" must be true or false`},
		{`{"kind":"conversation","correlation":"c","cursor":"%%%"}`, "cursor"},
		{`{"kind":"conversation","correlation":"c","limit":"ten"}`, `"limit" must be an integer`},
		{`{"kind":"search","filter":{"roles":"user"}}`, `"filter.roles" must be a list of strings`},
		// The reference's bound: more than 20 type prefixes is refused, as it refuses them.
		{`{"kind":"search","filter":{"channels":["a"` + strings.Repeat(`,"a"`, 20) + `]}}`, "21 prefixes (at most 20 allowed)"},
		{`{"kind":"search","filter":{"roles":["system"]}}`, `unknown role "system" in filter.roles (want any of: user, assistant, tool)`},
		{`{"kind":"search","filter":{"channels":["` + strings.Repeat("x", annals.MaxChannelBytes+1) + `"]}}`, "bytes long"},
		{`{"kind":"search","filter":{"words":"` + strings.Repeat("w ", view.MaxWords+1) + `"}}`, "words"},
		{`{"kind":"search","filter":{"since":1},"annals":{"strict":true}}`, `"filter.since" must be a string`},
		{`{"kind":"transcript","session":"a","before_id":""}`, `"before_id"`},
		{`{"kind":"transcript","session":"a","before_id":"95750.5"}`, `"before_id"`},
		{`{"kind":"search","page":{"limit":"ten"}}`, `"page.limit"`},
		{`{"kind":"search","page":{"cursor":"` + base64.RawURLEncoding.EncodeToString([]byte("s1|x|1|a")) + `"}}`, "page.cursor"},
		{`{"kind":"search","page":{"cursor":"` + base64.RawURLEncoding.EncodeToString([]byte("s1|1|0|a")) + `"}}`, "page.cursor"},
		{`{"kind":"search","page":{"cursor":"` + base64.RawURLEncoding.EncodeToString([]byte("c1|1|1|a")) + `"}}`, "page.cursor"},
		{`{"kind":"search","scope":"galaxy"}`, `unknown scope "galaxy"`},
		{`{"kind":"search","scope":"global"}`, "admin"},
	} {
		_, err := v.Query(ctx, strings.NewReader(tc.body))
		if err == nil {
			t.Errorf("%.80s: no error", tc.body)
			continue
		}
		if code := annals.ErrorCode(err); code != annals.EINVALID && code != annals.EFORBIDDEN {
			t.Errorf("%.80s: code %s (%v), want invalid or forbidden", tc.body, code, err)
		}
		if !strings.Contains(annals.ErrorMessage(err), tc.want) {
			t.Errorf("%.80s: message %q does not contain %q", tc.body, annals.ErrorMessage(err), tc.want)
		}
	}
}

func TestQueryRefusesOversizedBody(t *testing.T) {
	body := `{"kind":"agents","scope":"` + strings.Repeat("x", queryview.MaxBodyBytes) + `"}`
	_, err := queryview.New(history.New(history.Config{})).Query(context.Background(), strings.NewReader(body))
	if annals.ErrorCode(err) != annals.EINVALID || !strings.Contains(annals.ErrorMessage(err), "larger than") {
		t.Errorf("oversized body: %v, want invalid naming the size", err)
	}
}

func TestToolResultsJSONRoundTrips(t *testing.T) {
	four := 4
	for _, tc := range []struct {
		json string
		want queryview.ToolResults
	}{
		{`true`, queryview.ToolResults{}},
		{`false`, queryview.ToolResults{Drop: true}},
		{`{"truncate":4}`, queryview.ToolResults{Truncate: &four}},
	} {
		var got queryview.ToolResults
		if err := json.Unmarshal([]byte(tc.json), &got); err != nil {
			t.Fatalf("%s: %v", tc.json, err)
		}
		if got.Drop != tc.want.Drop || (got.Truncate == nil) != (tc.want.Truncate == nil) || (got.Truncate != nil && *got.Truncate != *tc.want.Truncate) {
			t.Errorf("%s decoded to %+v, want %+v", tc.json, got, tc.want)
		}
		b, err := json.Marshal(got)
		if err != nil || string(b) != tc.json {
			t.Errorf("%s re-encoded as %s (%v)", tc.json, b, err)
		}
	}
}

func TestContentValuesEncodeAsValueOrMarker(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    any
		want string
	}{
		{"WholeText", view.Text{Value: "hi"}, `"hi"`},
		{"CutText", view.Text{Value: "he", Truncated: true, Chars: 5}, `{"truncated":true,"chars":5,"preview":"he"}`},
		{"WholeJSON", view.JSON{Raw: json.RawMessage(`{"a":1}`)}, `{"a":1}`},
		{"CutJSON", view.JSON{Truncated: true, Chars: 9, Preview: `{"a":`}, `{"truncated":true,"chars":9,"preview":"{\"a\":"}`},
	} {
		b, err := json.Marshal(tc.v)
		if err != nil || string(b) != tc.want {
			t.Errorf("%s: encoded %s (%v), want %s", tc.name, b, err, tc.want)
			continue
		}
		switch want := tc.v.(type) {
		case view.Text:
			var got view.Text
			if err := json.Unmarshal(b, &got); err != nil || got != want {
				t.Errorf("%s: decoded %+v (%v), want %+v", tc.name, got, err, want)
			}
		case view.JSON:
			var got view.JSON
			if err := json.Unmarshal(b, &got); err != nil || string(got.Raw) != string(want.Raw) || got.Truncated != want.Truncated || got.Chars != want.Chars || got.Preview != want.Preview {
				t.Errorf("%s: decoded %+v (%v), want %+v", tc.name, got, err, want)
			}
		}
	}
}
