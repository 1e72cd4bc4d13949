package strictjson_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/strictjson"
)

type inner struct {
	Since string `json:"since"`
}

type custom struct{ v string }

func (c *custom) UnmarshalJSON(b []byte) error { return json.Unmarshal(b, &c.v) }

type request struct {
	Op     string            `json:"op"`
	Title  *string           `json:"title,omitempty"`
	Filter *inner            `json:"filter,omitempty"`
	List   []inner           `json:"list,omitempty"`
	Attrs  map[string]string `json:"attrs,omitempty"`
	Custom *custom           `json:"custom,omitempty"`
	Hidden string            `json:"-"`
}

func TestCheckRefusesWhatEncodingJSONWouldBend(t *testing.T) {
	for _, tc := range []struct {
		name, body, mention string
	}{
		{"invalid UTF-8", "{\"op\":\"list\",\"title\":\"bad \xff\"}", "UTF-8"},
		{"a lone high surrogate", `{"op":"list","title":"\ud800x"}`, "surrogate"},
		{"a lone low surrogate", `{"op":"list","title":"\udc00"}`, "surrogate"},
		{"a duplicate key", `{"op":"list","op":"delete"}`, `"op" is given twice`},
		{"a nested duplicate key", `{"op":"list","filter":{"since":"a","since":"b"}}`, `"filter.since" is given twice`},
		{"a duplicate map key", `{"op":"list","attrs":{"k":"a","k":"b"}}`, `"attrs.k" is given twice`},
		{"a field in the wrong case", `{"OP":"list"}`, `did you mean "op"`},
		{"a nested field in the wrong case", `{"op":"list","list":[{"Since":"x"}]}`, `"list[0].since"`},
	} {
		err := strictjson.Check([]byte(tc.body), &request{})
		if annals.ErrorCode(err) != annals.EINVALID || !strings.Contains(annals.ErrorMessage(err), tc.mention) {
			t.Errorf("%s: err %v, want invalid mentioning %q", tc.name, err, tc.mention)
		}
	}
}

func TestCheckAcceptsWhatIsExact(t *testing.T) {
	for _, body := range []string{
		`{"op":"list","title":"caf\u00e9 \ud83d\ude00 \\ud800 is text","filter":{"since":"x"},"list":[{"since":"y"}],"attrs":{"K":"a","k":"b"},"custom":"anything"}`,
		`{"op":"list","unknown":{"x":1}}`, // unknown fields are the decoder's to refuse, by name
		`{"op": "broken`,                  // syntax errors too
	} {
		if err := strictjson.Check([]byte(body), &request{}); err != nil {
			t.Errorf("Check(%s) = %v, want nil", body, err)
		}
	}
}

// tagged decodes itself (accepting "5" for 5, say) but into JSON-named fields: its keys are still
// checked for case.
type tagged struct {
	Limit int `json:"limit"`
}

func (t *tagged) UnmarshalJSON(b []byte) error {
	var raw struct {
		Limit json.Number `json:"limit"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	n, err := raw.Limit.Int64()
	t.Limit = int(n)
	return err
}

func TestCheckLooksInsideSelfDecodingStructsWithNames(t *testing.T) {
	type req struct {
		Page *tagged `json:"page"`
	}
	err := strictjson.Check([]byte(`{"page":{"LIMIT":1}}`), &req{})
	if annals.ErrorCode(err) != annals.EINVALID || !strings.Contains(annals.ErrorMessage(err), `did you mean "page.limit"`) {
		t.Errorf("wrong case inside a self-decoding struct: %v", err)
	}
	if err := strictjson.Check([]byte(`{"page":{"limit":"5"}}`), &req{}); err != nil {
		t.Errorf("the exact name: %v", err)
	}
}
