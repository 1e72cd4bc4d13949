package storetest

import (
	"strings"
	"testing"

	annals "github.com/annals-dev/annals"
)

// upperSecret is a redactor for the rescan test: it masks the word SECRETWORD wherever it occurs.
type upperSecret struct{}

func (upperSecret) RedactText(s string) (string, int) {
	n := strings.Count(s, "SECRETWORD")
	return strings.ReplaceAll(s, "SECRETWORD", "[redacted:word]"), n
}

func (upperSecret) RedactEntry(e *annals.Entry) int {
	var n int
	e.Text, n = upperSecret{}.RedactText(e.Text)
	return n
}

func rescanTests() []test {
	return []test{{"RescanMasksTagsAndKeepsTheirIndex", testRescanTags}}
}

// testRescanTags proves a rescan masks a secret in tags as in titles: the tag rows a list filters
// on and the metadata index change with it, so neither a tag filter nor a metadata lookup finds
// the old secret.
func testRescanTags(t *testing.T, s Store) {
	rs, ok := s.(annals.Rescanner)
	if !ok {
		t.Skip("the store cannot rescan")
	}
	c := NewChat("c1", "A")
	c.Tags = []string{"keep", "x-SECRETWORD", "SECRETWORD"}
	mustCreateChat(t, s, c)
	rep, err := rs.Rescan(t.Context(), upperSecret{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.ChatsChanged != 1 || rep.Replacements != 2 {
		t.Errorf("rescan report = %+v, want 1 chat changed with 2 replacements", rep)
	}
	if got := strings.Join(mustChat(t, s, "c1").Tags, ","); got != "keep,x-[redacted:word],[redacted:word]" {
		t.Errorf("tags after rescan = %q", got)
	}
	tag := "SECRETWORD"
	wantChatSet(t, s, "chats tagged with the old secret", annals.ChatFilter{Owner: allTenants, Tag: &tag})
	wantIDs(t, "MatchChats(SECRETWORD) after rescan", mustMatchChats(t, s, allTenants, "secretword"), nil)
	kept := "keep"
	wantChatSet(t, s, "chats tagged keep", annals.ChatFilter{Owner: allTenants, Tag: &kept}, "c1")
}
