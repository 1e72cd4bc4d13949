package summarize_test

import (
	"context"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/summarize"
)

func TestEstimateTokensCountsWordsPunctuationAndWideCharacters(t *testing.T) {
	for _, c := range []struct {
		text string
		want int
	}{
		{"", 0},
		{"the cat sat", 3},            // short words: one token each, spaces joined
		{"internationalization", 5},   // 20 letters: four bytes a token
		{`{"a":1}`, 7},                // { " a " : 1 }: punctuation is dense
		{"日本語のテキスト", 8},               // one token per wide character
		{"go test ./billing/...", 10}, // go test . / billing(2) / . . .
	} {
		if got := summarize.EstimateTokens(c.text); got != c.want {
			t.Errorf("EstimateTokens(%q) = %d, want %d", c.text, got, c.want)
		}
	}
	// Per byte, JSON tool output costs about twice what prose does: bytes would undercount it.
	prose := strings.Repeat("The migration finished and every test passed on the first try. ", 50)
	js := strings.Repeat(`{"id":17,"ok":true,"path":"/a/b.go","n":[1,2,3]},`, 64)
	if p, j := float64(summarize.EstimateTokens(prose))/float64(len(prose)), float64(summarize.EstimateTokens(js))/float64(len(js)); j < 1.8*p {
		t.Errorf("tokens per byte: prose %.3f, JSON %.3f; want JSON much denser", p, j)
	}
}

// TestChunksAreCutByTokensNotBytes: two transcripts of the same bytes, one prose, one dense JSON
// output in many small tool calls: by bytes they would be cut alike; by tokens the dense one
// needs more chunks, and no chunk is over the budget.
func TestChunksAreCutByTokensNotBytes(t *testing.T) {
	const budget = 600
	build := func(text func(i int) string) []*annals.Entry {
		tr := &transcript{}
		for i := range 60 {
			tr.assistant(text(i))
		}
		return tr.entries
	}
	prose := build(func(i int) string {
		return strings.Repeat("working through the migration steps carefully ", 6)
	})
	dense := build(func(i int) string {
		return strings.Repeat(`{"a":[1,2],"b":{}},`, 15)
	})
	chunks := func(entries []*annals.Entry) ([]call, int) {
		f := &fakeModel{}
		srv := openAIServer(t, f)
		s := newOpenAI(t, summarize.OpenAIConfig{BaseURL: srv.URL + "/v1", Model: "m", ChunkTokens: budget, MaxChunks: 100, Retrying: noRetry})
		if _, err := s.Summarize(context.Background(), nil, entries); err != nil {
			t.Fatal(err)
		}
		calls := f.recorded()
		return calls, len(calls) - 1 // the last call combines
	}
	pc, np := chunks(prose)
	dc, nd := chunks(dense)
	bytesOf := func(es []*annals.Entry) (n int) {
		for _, e := range es {
			n += len(e.Text)
		}
		return n
	}
	t.Logf("prose %d bytes: %d chunks; dense %d bytes: %d chunks", bytesOf(prose), np, bytesOf(dense), nd)
	if nd < np*3/2 {
		t.Errorf("dense JSON gave %d chunks and prose %d; want the denser transcript in more chunks", nd, np)
	}
	for _, calls := range [][]call{pc, dc} {
		for _, c := range calls[:len(calls)-1] {
			body := c.user[strings.Index(c.user, "<transcript>")+len("<transcript>") : strings.Index(c.user, "</transcript>")]
			if n := summarize.EstimateTokens(body); n > budget {
				t.Errorf("a chunk holds %d tokens, over the %d budget", n, budget)
			}
		}
	}
}

// TestToolOutputIsCutToItsBudgetBeforeChunking: a huge tool result and argument take a bounded
// share of the prompt, head and tail kept, while the conversation around them is whole.
func TestToolOutputIsCutToItsBudgetBeforeChunking(t *testing.T) {
	tr := &transcript{}
	tr.user("Why does the deploy fail? " + strings.Repeat("Please look closely. ", 20))
	tr.tool("Bash", map[string]any{"command": "kubectl apply -f " + strings.Repeat("x/", 2000)},
		"starting\n"+strings.Repeat(`{"level":"info","msg":"reconcile","n":42}`+"\n", 3000)+"Error: quota exceeded for cpu", annals.OutcomeFailed)
	f := &fakeModel{}
	srv := openAIServer(t, f)
	s := newOpenAI(t, summarize.OpenAIConfig{BaseURL: srv.URL + "/v1", Model: "m", Retrying: noRetry})
	if _, err := s.Summarize(context.Background(), nil, tr.entries); err != nil {
		t.Fatal(err)
	}
	calls := f.recorded()
	if len(calls) != 1 {
		t.Fatalf("calls = %d, want the cut transcript in one call", len(calls))
	}
	u := calls[0].user
	if n := summarize.EstimateTokens(u); n > 800 {
		t.Errorf("the prompt is %d tokens; the tool output was not cut to its budget", n)
	}
	for _, want := range []string{"Error: quota exceeded for cpu", "starting", "bytes omitted", strings.Repeat("Please look closely. ", 19)} {
		if !strings.Contains(u, want) {
			t.Errorf("the prompt lacks %q", want)
		}
	}
}
