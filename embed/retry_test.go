package embed_test

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/embed"
	"github.com/annals-dev/annals/internal/providerhttp/providertest"
)

// scripted answers the next requests from a script, then like the normal fake.
func scripted(f *fakeEmbeddings, script ...providertest.Answer) {
	sc := providertest.NewScript(script...)
	f.respond = func(w http.ResponseWriter, req embeddingsRequest) {
		if !sc.Serve(w) {
			f.answer(w, req)
		}
	}
}

var reply = providertest.Reply

// recording is a client against srv whose waits between attempts are recorded, not slept.
func recording(t *testing.T, cfg embed.OpenAIConfig) (*embed.OpenAI, *providertest.Waits) {
	o := mustOpenAI(t, cfg)
	waits := &providertest.Waits{}
	embed.SetSleep(o, waits.Sleep)
	return o, waits
}

func TestOpenAIEmbeddingsRetryRateLimitsAndServerErrorsHonouringRetryAfter(t *testing.T) {
	f, srv := newFakeEmbeddings(t, 4)
	scripted(f,
		reply(429, map[string]string{"Retry-After": "7"}, `{"error":{"message":"Rate limit reached for requests","type":"requests"}}`),
		reply(500, nil, `{"error":{"message":"The server had an error while processing your request."}}`))
	o, waits := recording(t, embed.OpenAIConfig{BaseURL: srv.URL + "/v1", APIKey: testKey, Model: "m"})
	vecs, err := o.Embed(context.Background(), []string{"flaky ci test"})
	if err != nil || len(vecs) != 1 || len(vecs[0]) != 4 {
		t.Fatalf("Embed = %v, %v; want one vector after two retries", vecs, err)
	}
	if n := len(f.reqs()); n != 3 {
		t.Errorf("requests = %d, want 3", n)
	}
	if !waits.Equal(7*time.Second, 2*time.Second) {
		t.Errorf("waits = %v, want [7s 2s] (Retry-After, then the doubled backoff)", waits.All())
	}
}

func TestOpenAIEmbeddingsGiveUpAfterTheRetriesAndOnWhatRetryingCannotFix(t *testing.T) {
	always := func(fn providertest.Answer) []providertest.Answer {
		return []providertest.Answer{fn, fn, fn, fn, fn}
	}
	for _, c := range []struct {
		name     string
		script   []providertest.Answer
		requests int
		code     string
	}{
		{"500 every time", always(reply(500, nil, `{"error":{"message":"boom"}}`)), 3, annals.EUNAVAILABLE},
		{"400 is not retried", always(reply(400, nil, `{"error":{"message":"input too long"}}`)), 1, annals.EINVALID},
		{"401 is not retried", always(reply(401, nil, `{"error":{"message":"bad key"}}`)), 1, annals.EUNAVAILABLE},
		{"Retry-After beyond the cap", always(reply(429, map[string]string{"Retry-After": "3600"}, `{"error":{"message":"slow down"}}`)), 1, annals.EUNAVAILABLE},
		{"malformed JSON twice", always(reply(200, nil, `{"data": [{"index": 0, "embedding": [1, 2`)), 2, annals.EUNAVAILABLE},
		{"wrong count twice", always(reply(200, nil, `{"data": []}`)), 2, annals.EUNAVAILABLE},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, srv := newFakeEmbeddings(t, 4)
			scripted(f, c.script...)
			o, _ := recording(t, embed.OpenAIConfig{BaseURL: srv.URL + "/v1", APIKey: testKey, Model: "m"})
			_, err := o.Embed(context.Background(), []string{"x"})
			if annals.ErrorCode(err) != c.code || len(f.reqs()) != c.requests {
				t.Errorf("err = %v after %d requests; want %s after %d", err, len(f.reqs()), c.code, c.requests)
			}
		})
	}
}

func TestOpenAIEmbeddingsAskOnceMoreForAMalformedAnswer(t *testing.T) {
	f, srv := newFakeEmbeddings(t, 4)
	scripted(f, reply(200, nil, `<html>proxy error</html>`))
	o, waits := recording(t, embed.OpenAIConfig{BaseURL: srv.URL + "/v1", APIKey: testKey, Model: "m"})
	vecs, err := o.Embed(context.Background(), []string{"x", "y"})
	if err != nil || len(vecs) != 2 || len(f.reqs()) != 2 || len(waits.All()) != 0 {
		t.Errorf("Embed = %d vectors, %v after %d requests and waits %v; want the second answer at once", len(vecs), err, len(f.reqs()), waits.All())
	}
}

func TestOpenAIEmbeddingsRetryATimedOutRequest(t *testing.T) {
	var n atomic.Int32
	f, srv := newFakeEmbeddings(t, 4)
	release := make(chan struct{})
	defer close(release)
	f.respond = func(w http.ResponseWriter, req embeddingsRequest) {
		if n.Add(1) == 1 {
			<-release // the first request hangs past the client's timeout
			return
		}
		f.answer(w, req)
	}
	o, waits := recording(t, embed.OpenAIConfig{BaseURL: srv.URL + "/v1", APIKey: testKey, Model: "m", Timeout: 100 * time.Millisecond})
	vecs, err := o.Embed(context.Background(), []string{"x"})
	if err != nil || len(vecs) != 1 || n.Load() != 2 || len(waits.All()) != 1 {
		t.Errorf("Embed = %v, %v after %d requests, waits %v; want the second attempt to answer", vecs, err, n.Load(), waits.All())
	}
}

func TestOpenAIEmbeddingsHoldTheConcurrencyLimit(t *testing.T) {
	var inFlight, most atomic.Int32
	f, srv := newFakeEmbeddings(t, 4)
	f.respond = func(w http.ResponseWriter, req embeddingsRequest) {
		now := inFlight.Add(1)
		for {
			m := most.Load()
			if now <= m || most.CompareAndSwap(m, now) {
				break
			}
		}
		time.Sleep(20 * time.Millisecond)
		inFlight.Add(-1)
		f.answer(w, req)
	}
	o := mustOpenAI(t, embed.OpenAIConfig{BaseURL: srv.URL + "/v1", APIKey: testKey, Model: "m", Concurrency: 2})
	var wg sync.WaitGroup
	errs := make(chan error, 6)
	for i := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := o.Embed(context.Background(), []string{string(rune('a' + i))})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if m := most.Load(); m > 2 || m < 1 {
		t.Errorf("at most %d requests were in flight, want at most the limit of 2", m)
	}
}
