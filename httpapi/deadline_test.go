package httpapi_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals/httpapi"
)

// stallingBody sends half of a body, then nothing until release is closed.
type stallingBody struct {
	first   io.Reader
	release chan struct{}
	rest    io.Reader
}

func (b *stallingBody) Read(p []byte) (int, error) {
	if n, err := b.first.Read(p); n > 0 || err != io.EOF {
		return n, err
	}
	<-b.release
	return b.rest.Read(p)
}

func TestARequestStopsAtItsDeadline(t *testing.T) {
	f := &fakeService{}
	srv := httpapi.New(httpapi.Config{Addr: "127.0.0.1:0", Service: f, RequestTimeout: 300 * time.Millisecond})
	if err := srv.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	body := `{"ops":[{"create_chat":{"id":"c1","title":"slow"}}]}`
	release := make(chan struct{})
	defer close(release)
	req, _ := http.NewRequest("POST", srv.URL()+"/v1/capture", &stallingBody{first: strings.NewReader(body[:20]), release: release, rest: strings.NewReader(body[20:])})
	req.ContentLength = int64(len(body))
	start := time.Now()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	answer, _ := io.ReadAll(res.Body)
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("answered after %s; the request timeout is 300ms", took)
	}
	if res.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(answer), "request timeout (300ms, --request-timeout)") {
		t.Errorf("%d %s, want 503 naming the request timeout", res.StatusCode, answer)
	}
	if len(f.calls) != 0 {
		t.Errorf("the service was called after the deadline: %v", f.calls)
	}
}
