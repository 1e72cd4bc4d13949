package queryview

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
)

// Options are annals's own request options, under "annals" in any query: a client of the
// reference never sends them, so whatever they change is opt-in (issue 15, item 11).
type Options struct {
	// Strict refuses an unknown field by name, with the fields its object takes, and a field
	// name in another case, instead of ignoring it as the reference does. annals's own clients
	// and tests set it to catch typos.
	Strict bool `json:"strict,omitempty"`
}

// strictRequested reports whether a query object asks for strict decoding. A malformed
// "annals" object is left to the decoder, which names it.
func strictRequested(raw []byte) bool {
	var head struct {
		Annals *Options `json:"annals"`
	}
	return json.Unmarshal(raw, &head) == nil && head.Annals != nil && head.Annals.Strict
}

// prune removes from a query object every field its request type does not take, at every
// level the request decodes (filter, select, page, select.tool_results), as the reference,
// which reads the fields it knows from a dict and never looks at the rest. Field names are
// matched exactly, so a name in another case is unknown, as it is to the reference. The fields
// it keeps are read as the reference reads them (pythonic): a falsy value is no value, text is
// Python's str() of a scalar. A value that is not an object is left for the decoder to refuse
// with its usual message.
func prune(raw []byte, t reflect.Type) []byte {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var obj map[string]json.RawMessage
	if t.Kind() != reflect.Struct || json.Unmarshal(raw, &obj) != nil || obj == nil {
		return raw
	}
	fields := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if name := jsonName(f); name != "" {
			fields[name] = f.Type
		}
	}
	changed := false
	for k, v := range obj {
		ft, ok := fields[k]
		switch {
		case !ok:
			delete(obj, k)
			changed = true
		case ft == reflect.TypeOf(&ToolResults{}):
			if p := pruneToolResults(v); !bytes.Equal(p, v) {
				obj[k], changed = p, true
			}
		case isStructPointer(ft) && falsy(v):
			// The reference's q.get("filter") or {}: a falsy filter, select or page is none.
			delete(obj, k)
			changed = true
		case isStructPointer(ft) && bytes.HasPrefix(bytes.TrimSpace(v), []byte("{")):
			if p := prune(v, ft); !bytes.Equal(p, v) {
				obj[k], changed = p, true
			}
		}
	}
	if rules, ok := pythonic[t]; ok && rules(obj) {
		changed = true
	}
	if !changed {
		return raw
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return raw
	}
	return out
}

// pythonic reads the fields of a filter and a projection as the reference does, rewriting them
// in place into what the typed decoder takes; it reports whether it changed anything.
var pythonic = map[reflect.Type]func(obj map[string]json.RawMessage) bool{
	reflect.TypeOf(Filter{}): pythonicFilter,
	reflect.TypeOf(Select{}): pythonicSelect,
}

// pythonicFilter: a falsy field is no filter (f.get(k) or ...); text, words and the time bounds
// are str() of the value; a channel is str() of each item; involvement filters only when it is
// "agent".
func pythonicFilter(obj map[string]json.RawMessage) bool {
	changed := false
	for k, v := range obj {
		switch {
		case falsy(v):
			delete(obj, k)
			changed = true
		case k == "involvement":
			if s, ok := pyStr(v); !ok || s != InvolvementAgent || v[0] != '"' {
				delete(obj, k)
				changed = true
			}
		case k == "text" || k == "words" || k == "since" || k == "until":
			if s, ok := pyStr(v); ok && v[0] != '"' {
				obj[k], _ = json.Marshal(s)
				changed = true
			}
		case k == "channels":
			var items []json.RawMessage
			if json.Unmarshal(v, &items) != nil {
				continue
			}
			strs := make([]string, len(items))
			for i, it := range items {
				s, ok := pyStr(it)
				if !ok {
					return changed // left to the decoder, which names the item's type
				}
				strs[i] = s
			}
			obj[k], _ = json.Marshal(strs)
			changed = true
		}
	}
	return changed
}

// pythonicSelect: tool_calls and reasoning keep what they name when absent or truthy, and drop
// it when given a falsy value, null included (sel.get("tool_calls", True)).
func pythonicSelect(obj map[string]json.RawMessage) bool {
	changed := false
	for _, k := range []string{"tool_calls", "reasoning"} {
		if v, ok := obj[k]; ok {
			obj[k] = json.RawMessage(strconv.FormatBool(!falsy(v)))
			changed = true
		}
	}
	return changed
}

// pruneToolResults keeps only "truncate" of a {"truncate": N} projection.
func pruneToolResults(v json.RawMessage) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal(v, &obj) != nil || obj == nil {
		return v
	}
	n, ok := obj["truncate"]
	if len(obj) == 1 && ok {
		return v
	}
	if !ok {
		return json.RawMessage("{}")
	}
	out, _ := json.Marshal(map[string]json.RawMessage{"truncate": n})
	return out
}

func isStructPointer(t reflect.Type) bool {
	return t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct
}

// jsonName is the name a struct field decodes from, "" for one that never decodes.
func jsonName(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	tag := f.Tag.Get("json")
	if tag == "-" {
		return ""
	}
	name, _, _ := bytes.Cut([]byte(tag), []byte(","))
	if len(name) == 0 {
		return f.Name
	}
	return string(name)
}
