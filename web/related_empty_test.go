package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
)

// A chat with no related chats says so as a sentence, not as item "1." of an empty ranked list.
func TestNoRelatedChatsIsASentenceNotAListItem(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.chat(&annals.Chat{ID: "alone", Title: "Alone", CreatedAt: t0},
		&annals.Entry{Kind: annals.KindUser, Text: "a chat with nothing like it"})
	a := do(t, client(t), "GET", e.url+"/chats/alone/related", nil, nil)
	if a.status != http.StatusOK {
		t.Fatalf("related: %d %s", a.status, a.body)
	}
	if !strings.Contains(a.body, "No related chats.") {
		t.Fatalf("related of a lone chat does not say so: %s", a.body)
	}
	if strings.Contains(a.body, "<ol") || strings.Contains(a.body, "<li") {
		t.Errorf("the empty state is drawn as a list: %s", a.body)
	}
}
