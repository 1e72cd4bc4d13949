package queryview

import (
	"bytes"
	"encoding/json"
	"reflect"
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
// matched exactly, so a name in another case is unknown, as it is to the reference. A value
// that is not an object is left for the decoder to refuse with its usual message.
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
		case isStructPointer(ft) && bytes.HasPrefix(bytes.TrimSpace(v), []byte("{")):
			if p := prune(v, ft); !bytes.Equal(p, v) {
				obj[k], changed = p, true
			}
		}
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
