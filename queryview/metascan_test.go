package queryview

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
)

// metaDocs are metadata documents as the lanius importer writes them, and variations of them the
// walk must either read as encoding/json reads them or give up on.
var metaDocs = []string{
	`{"lanius_event":{"id":12,"cause_id":null,"state":"pending","payload_null":false}}`,
	`{"lanius_event":{"cause_id":7,"id":13,"payload_null":true,"state":{"a":[1,"}"]}},"other":1}`,
	`{ "x" : "lanius_event" , "lanius_event" : { "id" : -3 , "state" : [ ] } }`,
	`{"lanius_event":null}`, `{"lanius_event":{}}`, `{}`, `[]`, `"lanius_event"`, `null`,
	`{"lanius_event":{"id":1.5}}`, `{"lanius_event":{"id":"5"}}`, `{"lanius_event":{"id":1e3}}`,
	`{"lanius_event":{"id":99999999999999999999}}`, `{"lanius_event":{"ID":4}}`, `{"Lanius_Event":{"id":4}}`,
	`{"lanius_event":{"id":4,"id":5}}`, `{"lanius_event":{"id":4},"lanius_event":{"state":1}}`,
	`{"lanius_event":{"payload_null":"yes"}}`, `{"lanius_event":{"payload_null":null}}`, `{"lanius_event":5}`,
	`{"lanius_\u0065vent":{"id":4}}`, `{"lanius_event":{"i\u0064":4}}`, `{"a\"b":{"}":"{"},"lanius_event":{"id":8}}`,
	`{"lanius":{"id":100,"event_id":7},"lanius_content":{"value":"plain text"}}`,
	`{"lanius":{"id":100,"event_id":7},"lanius_result":{"id":101,"event_id":9}}`,
	`{"lanius":{"id":100},"lanius_content":{"chars":20000,"preview":"ab\u00e9"}}`,
	`{"lanius":{"id":100},"lanius_content":{"value":[1,{"x":"]"}],"Value":2}}`,
	`{"lanius":{"id":100},"lanius_content":{"value":1,"value":2}}`, `{"lanius":{"id":100},"lanius_content":null}`,
	`{"lanius":{"id":100},"lanius_content":"text"}`, `{"lanius":null,"lanius_result":{"event_id":null}}`,
	`{"LANIUS":{"id":1}}`, `{"lanius":{"Id":1}}`, `{"lanius":{"id":1},"lanius":{"event_id":2}}`, `{"lanius":[1]}`,
	`{"lanius_result":{"id":true}}`, "{\n\t\"lanius\" :\r\n{\"id\":\n1 }\n}",
}

// TestMetaScanMatchesUnmarshal: where the walk reads a document, it reads what encoding/json
// reads; the importer's own shapes are read by the walk.
func TestMetaScanMatchesUnmarshal(t *testing.T) {
	docs := append([]string(nil), metaDocs...)
	r := rand.New(rand.NewPCG(3, 4))
	for range 3000 {
		d := []byte(metaDocs[r.IntN(len(metaDocs))])
		for range 1 + r.IntN(3) {
			const alphabet = `{}[]":,0-1.en\ lasuvidtcr`
			d[r.IntN(len(d))] = alphabet[r.IntN(len(alphabet))]
		}
		docs = append(docs, string(d))
	}
	walked := 0
	for _, doc := range docs {
		if !json.Valid([]byte(doc)) {
			continue // the view hands over valid metadata only
		}
		if ev, ok := scanLaniusEvent([]byte(doc)); ok {
			walked++
			var want struct {
				Lanius *eventFields `json:"lanius_event"`
			}
			if err := json.Unmarshal([]byte(doc), &want); err != nil {
				t.Errorf("%s: the walk read it, encoding/json refuses it: %v", doc, err)
			} else if got, exp := fmt.Sprint(describeEvent(ev)), fmt.Sprint(describeEvent(eventFrom(want.Lanius))); got != exp {
				t.Errorf("%s: walk %s, encoding/json %s", doc, got, exp)
			}
		}
		if m, ok := scanLaniusMessage([]byte(doc)); ok {
			walked++
			var want struct {
				Lanius       *laniusOrigin              `json:"lanius"`
				LaniusResult *laniusOrigin              `json:"lanius_result"`
				Content      map[string]json.RawMessage `json:"lanius_content"`
			}
			if err := json.Unmarshal([]byte(doc), &want); err != nil {
				t.Errorf("%s: the walk read it, encoding/json refuses it: %v", doc, err)
				continue
			}
			exp := laniusMessageMeta{Lanius: want.Lanius, LaniusResult: want.LaniusResult}
			exp.Content.Value, exp.Content.Chars, exp.Content.Preview = want.Content["value"], want.Content["chars"], want.Content["preview"]
			if !reflect.DeepEqual(normal(m), normal(exp)) {
				t.Errorf("%s: walk %+v, encoding/json %+v", doc, m, exp)
			}
		}
	}
	for _, doc := range metaDocs[:3] {
		if _, ok := scanLaniusEvent([]byte(doc)); !ok {
			t.Errorf("%s: the importer's shape is not walked", doc)
		}
	}
	for _, doc := range metaDocs[23:26] {
		if _, ok := scanLaniusMessage([]byte(doc)); !ok {
			t.Errorf("%s: the importer's shape is not walked", doc)
		}
	}
	if walked < 100 {
		t.Errorf("only %d documents walked", walked)
	}
}

type eventFields = struct {
	ID          *int64          `json:"id"`
	CauseID     json.RawMessage `json:"cause_id"`
	State       json.RawMessage `json:"state"`
	PayloadNull bool            `json:"payload_null"`
}

func eventFrom(e *eventFields) *laniusEventMeta {
	if e == nil {
		return nil
	}
	return &laniusEventMeta{ID: e.ID, CauseID: e.CauseID, State: e.State, PayloadNull: e.PayloadNull}
}

func describeEvent(e *laniusEventMeta) string {
	if e == nil {
		return "none"
	}
	id := "nil"
	if e.ID != nil {
		id = fmt.Sprint(*e.ID)
	}
	return fmt.Sprintf("id=%s cause=%q state=%q null=%v", id, e.CauseID, e.State, e.PayloadNull)
}

// normal makes empty and absent raw values compare equal, as the overlay reads them alike.
func normal(m laniusMessageMeta) laniusMessageMeta {
	for _, b := range []*[]byte{&m.Content.Value, &m.Content.Chars, &m.Content.Preview} {
		if len(*b) == 0 {
			*b = nil
		} else {
			*b = bytes.Clone(*b)
		}
	}
	return m
}
