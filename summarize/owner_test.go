package summarize_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/summarize"
)

// keyedProvider is one tenant's OpenAI-compatible provider: it answers only its own key, and
// records the key of every request that reached it.
type keyedProvider struct {
	name, key string
	mu        sync.Mutex
	seen      []string
	srv       *httptest.Server
}

func newKeyedProvider(t *testing.T, name, key string) *keyedProvider {
	p := &keyedProvider{name: name, key: key}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		p.mu.Lock()
		p.seen = append(p.seen, got)
		p.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path != "/v1/chat/completions" || got != p.key {
			w.WriteHeader(http.StatusUnauthorized)
			// Like OpenAI, echo (part of) the key that was sent: the client must scrub it.
			io.WriteString(w, `{"error":{"message":"Incorrect API key provided: `+got+`"}}`)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{
			"choices": []map[string]any{{"message": map[string]any{"role": "assistant", "content": "recap by " + p.name}}},
			"usage":   map[string]int{"prompt_tokens": 3, "completion_tokens": 2},
		})
	}))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *keyedProvider) keys() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.seen...)
}

func (p *keyedProvider) client(t *testing.T, key string) *summarize.OpenAI {
	return newOpenAI(t, summarize.OpenAIConfig{BaseURL: p.srv.URL + "/v1", APIKey: key, Model: p.name + "-model", Retrying: noRetry})
}

func TestByOwnerSummarisesEachChatWithItsOwnersProviderAndKey(t *testing.T) {
	a := newKeyedProvider(t, "provider-a", "sk-tenant-a-0000000001")
	agent := newKeyedProvider(t, "provider-agent", "sk-agent-a-0000000002")
	def := newKeyedProvider(t, "provider-default", "sk-default-0000000003")
	r, err := summarize.NewByOwner(def.client(t, def.key),
		summarize.Choice{Tenant: "a", Summarizer: a.client(t, a.key)},
		summarize.Choice{Tenant: "a", Agent: "reviewer", Summarizer: agent.client(t, agent.key)},
		summarize.Choice{Tenant: "quiet"}, // recaps off
	)
	if err != nil {
		t.Fatal(err)
	}
	entries := fixTranscript().entries
	cases := []struct {
		chat      *annals.Chat
		want      string
		wantModel string
	}{
		{&annals.Chat{ID: "c1", TenantID: "a", UserID: "u"}, "recap by provider-a", "provider-a-model"},
		{&annals.Chat{ID: "c2", TenantID: "a", UserID: "u", AgentID: "reviewer"}, "recap by provider-agent", "provider-agent-model"},
		{&annals.Chat{ID: "c3", TenantID: "a", UserID: "u", AgentID: "other"}, "recap by provider-a", "provider-a-model"},
		// The agent "reviewer" of another tenant is another agent: tenant a's override is not its.
		{&annals.Chat{ID: "c4", TenantID: "b", UserID: "u", AgentID: "reviewer"}, "recap by provider-default", "provider-default-model"},
		{&annals.Chat{ID: "c5", TenantID: "b", UserID: "u"}, "recap by provider-default", "provider-default-model"},
	}
	for _, c := range cases {
		got, usage, err := r.SummarizeMetered(context.Background(), c.chat, entries)
		if err != nil || got != c.want || usage.Model != c.wantModel || usage.Calls != 1 {
			t.Errorf("chat %s (tenant %s, agent %q): %q %+v %v; want %q by %s", c.chat.ID, c.chat.TenantID, c.chat.AgentID, got, usage, err, c.want, c.wantModel)
		}
	}
	// Each provider saw only its own key, and only the recaps of its owners' chats.
	for _, p := range []struct {
		p *keyedProvider
		n int
	}{{a, 2}, {agent, 1}, {def, 2}} {
		keys := p.p.keys()
		if len(keys) != p.n {
			t.Errorf("%s got %d requests, want %d", p.p.name, len(keys), p.n)
		}
		for _, k := range keys {
			if k != p.p.key {
				t.Errorf("%s was sent key %q, want only its own", p.p.name, k)
			}
		}
	}
	if _, err := r.Summarize(context.Background(), &annals.Chat{ID: "q", TenantID: "quiet"}, entries); annals.ErrorCode(err) != annals.EUNAVAILABLE {
		t.Errorf("recap of a tenant with recaps off: %v, want unavailable", err)
	}
	if len(def.keys()) != 2 {
		t.Errorf("a tenant with recaps off reached the default provider")
	}
}

func TestByOwnerErrorsNeverShowTheKey(t *testing.T) {
	// Tenant a's provider was given the wrong key: its 401 echoes that key, which the error hides.
	a := newKeyedProvider(t, "provider-a", "sk-tenant-a-0000000001")
	const wrong = "sk-tenant-a-wrong-9999999"
	r, err := summarize.NewByOwner(nil, summarize.Choice{Tenant: "a", Summarizer: a.client(t, wrong)})
	if err != nil {
		t.Fatal(err)
	}
	_, usage, err := r.SummarizeMetered(context.Background(), &annals.Chat{ID: "c", TenantID: "a"}, fixTranscript().entries)
	if err == nil || !strings.Contains(annals.ErrorMessage(err), "401") || strings.Contains(err.Error(), wrong) || strings.Contains(annals.ErrorMessage(err), wrong) {
		t.Errorf("error = %v; want the 401 without the key", err)
	}
	if usage.Calls != 1 {
		t.Errorf("usage = %+v, want the failed call counted", usage)
	}
	// No default: a tenant with no choice has no recap.
	if _, err := r.Summarize(context.Background(), &annals.Chat{ID: "c", TenantID: "b"}, fixTranscript().entries); annals.ErrorCode(err) != annals.EUNAVAILABLE {
		t.Errorf("recap without a default: %v, want unavailable", err)
	}
}

func TestNewByOwnerRejectsAmbiguousChoices(t *testing.T) {
	x := summarize.Extractive{}
	for name, choices := range map[string][]summarize.Choice{
		"no tenant":        {{Agent: "a", Summarizer: x}},
		"tenant twice":     {{Tenant: "t", Summarizer: x}, {Tenant: "t", Summarizer: x}},
		"agent twice":      {{Tenant: "t", Agent: "a", Summarizer: x}, {Tenant: "t", Agent: "a"}},
		"blank tenant key": {{Tenant: "  ", Summarizer: x}},
	} {
		if _, err := summarize.NewByOwner(x, choices...); annals.ErrorCode(err) != annals.EINVALID {
			t.Errorf("%s: %v, want invalid", name, err)
		}
	}
}
