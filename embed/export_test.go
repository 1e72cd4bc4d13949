package embed

import (
	"context"
	"time"
)

// SetSleep replaces the wait between the client's attempts, so tests record the waits instead
// of sleeping through them.
func SetSleep(o *OpenAI, fn func(context.Context, time.Duration) error) { o.client.Sleep = fn }
