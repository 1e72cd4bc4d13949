package envelope_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/envelope"
	"github.com/annals-dev/annals/history"
)

// The client sends typed parameters as the envelope that means them (ListRequest and the rest);
// the server parses that envelope back. Every field must survive the round trip, or a client
// call would quietly ask for something else than its caller did.
func TestTypedParamsRoundTripThroughTheEnvelope(t *testing.T) {
	from := time.Date(2026, 1, 2, 3, 4, 5, 600, time.UTC)
	to := from.Add(48 * time.Hour)
	st := annals.StatusFailed
	q := annals.ChatQuery{Status: &st, From: &from, To: &to, Tag: "ops", TitleContains: "valve", IDPrefix: "a1", Agent: "bot", PinnedOnly: true, IncludeArchived: true}
	q.Attributes = map[string]annals.AttrMatch{"repo": {Value: "o/r"}, "cwd": {Value: "src", Contains: true}}
	page := annals.PageParams{Limit: 7, Offset: 3, Cursor: "c"}

	list := annals.ListParams{Scope: annals.ScopeTenant, Filter: q, Page: page}
	r := envelope.ListRequest(list)
	if got, err := r.ListParams(); err != nil || !reflect.DeepEqual(got, list) || r.Op != history.OpList {
		t.Errorf("list: op %q, %+v, %v; want %+v", r.Op, got, err, list)
	}

	search := annals.SearchParams{Scope: annals.ScopeUser, Query: "a b", In: []string{"title"}, Sort: "recent", Mode: annals.SearchEntriesMode, Filter: q, Page: page}
	r = envelope.SearchRequest(search)
	if got, err := r.SearchParams(); err != nil || !reflect.DeepEqual(got, search) || r.Op != history.OpSearch {
		t.Errorf("search: op %q, %+v, %v; want %+v", r.Op, got, err, search)
	}
	if r.MarkOpen != annals.SnippetMarkOpen || r.MarkClose != annals.SnippetMarkClose {
		t.Errorf("search asks for marks %q %q; want the typed sentinels", r.MarkOpen, r.MarkClose)
	}

	related := annals.RelatedParams{Scope: annals.ScopeSelf, ChatID: "c1", Query: "q", Limit: 4, IncludeArchived: true}
	r = envelope.RelatedRequest(related)
	if got, err := r.RelatedParams(); err != nil || got != related || r.Op != history.OpRelated {
		t.Errorf("related: op %q, %+v, %v; want %+v", r.Op, got, err, related)
	}

	n := 2
	get := annals.GetParams{Chat: annals.ChatSelector{Scope: annals.ScopeTenant, ID: "c1"}, Format: annals.FormatConversation, Limit: 5, AfterSeq: 9, Cursor: "x", AroundSeq: 11, Context: &n}
	r = envelope.GetRequest(get)
	if got, err := r.GetParams(); err != nil || !reflect.DeepEqual(got, get) || r.Op != history.OpGet {
		t.Errorf("get: op %q, %+v, %v; want %+v", r.Op, got, err, get)
	}

	sel := annals.ChatSelector{Scope: annals.ScopeUser, ID: "c2"}
	if r := envelope.ByIDRequest(history.OpPin, sel); r.Op != history.OpPin || r.Selector() != sel {
		t.Errorf("by id: op %q selector %+v; want pin %+v", r.Op, r.Selector(), sel)
	}
}
