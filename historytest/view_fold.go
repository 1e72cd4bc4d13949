package historytest

import (
	"slices"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/queryview"
)

// testViewFoldedPrefixes: as the reference's "type = P OR type LIKE P || '/%'", a channel (or an
// agent's) prefix matches the channel itself exactly and anything below it with ASCII letters
// in either case; unlike the reference, % and _ in the name are never wildcards.
func testViewFoldedPrefixes(t *testing.T, open Opener) {
	f := newViewFixture(t, open)
	f.chat("exact", "A", "ua1", "", 0, ve(annals.KindUser, 1, "in/agent/main", "", "exact"))
	f.chat("below", "A", "ua1", "", 0, ve(annals.KindUser, 2, "in/agent/main/x", "", "below"))
	f.chat("shout", "A", "ua1", "", 0, ve(annals.KindUser, 3, "IN/AGENT/MAIN/shout", "", "shout"))
	f.chat("upper", "A", "ua1", "", 0, ve(annals.KindUser, 4, "IN/AGENT/MAIN", "", "upper"))
	f.chat("wild", "A", "ua1", "", 0, ve(annals.KindUser, 5, "in/agent/mXin/x", "", "wild"))
	f.chat("nonascii", "A", "ua1", "", 0, ve(annals.KindUser, 6, "in/agent/mÄin/x", "", "nonascii"))
	ctx := as(member("A", "ua1", "aa1", annals.ScopeTenant, annals.ScopeUser))

	for _, tc := range []struct {
		channel string
		want    []string
	}{
		{"in/agent/main", []string{"shout#1", "below#1", "exact#1"}},
		{"IN/AGENT/MAIN", []string{"upper#1", "shout#1", "below#1"}},
		{"in/agent/m_in", nil},
		{"in/agent/mäin", nil},
	} {
		got := f.searchKeys(t, ctx, `{"kind":"search","filter":{"channels":["`+tc.channel+`"]}}`)
		if (len(got) != 0 || len(tc.want) != 0) && !slices.Equal(got, tc.want) {
			t.Errorf("channels [%s] = %v, want %v", tc.channel, got, tc.want)
		}
	}
	for _, tc := range []struct {
		agent string
		want  []string
	}{
		{"main", []string{"shout", "below", "exact"}},
		{"MAIN", []string{"shout", "below"}}, // in/agent/MAIN is not IN/AGENT/MAIN
		{"m_in", nil},
	} {
		ans := f.query(t, ctx, `{"kind":"sessions","agent":"`+tc.agent+`"}`).(*queryview.SessionsAnswer)
		var got []string
		for _, s := range ans.Sessions {
			got = append(got, s.ID)
		}
		if (len(got) != 0 || len(tc.want) != 0) && !slices.Equal(got, tc.want) {
			t.Errorf("sessions of agent %s = %v, want %v", tc.agent, got, tc.want)
		}
	}
}
