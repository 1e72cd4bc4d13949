// Package providertest holds what the tests of the provider clients (embed/, summarize/) share
// about retries: a scripted sequence of provider answers (rate limits, server errors, malformed
// bodies) served before a fake's normal answer, and a recorder of the waits between attempts, so
// a test checks the backoff without sleeping through it; and an embeddings server that can go
// down (EmbeddingsServer). Only tests import it.
package providertest

import (
	"context"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"
)

// Answer writes one provider answer.
type Answer func(http.ResponseWriter)

// Reply is an answer with a status, headers and a JSON body.
func Reply(code int, header map[string]string, body string) Answer {
	return func(w http.ResponseWriter) {
		for k, v := range header {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_, _ = io.WriteString(w, body)
	}
}

// Script answers the next requests one answer each, in order; safe for concurrent handlers.
type Script struct {
	mu   sync.Mutex
	next []Answer
}

// NewScript is a script of answers.
func NewScript(answers ...Answer) *Script { return &Script{next: answers} }

// Serve answers w with the next scripted answer and reports whether there was one (false: the
// script is spent and the fake answers normally).
func (s *Script) Serve(w http.ResponseWriter) bool {
	s.mu.Lock()
	var a Answer
	if len(s.next) > 0 {
		a, s.next = s.next[0], s.next[1:]
	}
	s.mu.Unlock()
	if a == nil {
		return false
	}
	a(w)
	return true
}

// Waits records the waits a client asked for between its attempts instead of sleeping them.
type Waits struct {
	mu sync.Mutex
	d  []time.Duration
}

// Sleep is the client's sleep: it records d and returns at once (the context's error if done).
func (w *Waits) Sleep(ctx context.Context, d time.Duration) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.d = append(w.d, d)
	return ctx.Err()
}

// All returns the waits recorded so far.
func (w *Waits) All() []time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.d)
}

// Equal reports whether the waits recorded are exactly want.
func (w *Waits) Equal(want ...time.Duration) bool { return slices.Equal(w.All(), want) }
