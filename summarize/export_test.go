package summarize

import (
	"context"
	"time"
)

// Sentences exposes the sentence splitter to the external tests, which pin its edge cases.
var Sentences = sentences

// SetSleep replaces the wait between a client's attempts, so tests record the waits instead of
// sleeping through them.
func SetSleep(s any, fn func(context.Context, time.Duration) error) {
	switch c := s.(type) {
	case *OpenAI:
		c.client.Sleep = fn
	case *Anthropic:
		c.client.Sleep = fn
	}
}
