package embed

import (
	"context"
	"time"
)

// SetSleep replaces the wait between the client's attempts, so tests record the waits instead
// of sleeping through them.
func SetSleep(o *OpenAI, fn func(context.Context, time.Duration) error) { o.client.Sleep = fn }

// ForgetLearned saves an empty learned state for tenant, so the next Learn starts from scratch.
func ForgetLearned(ctx context.Context, src LearnSource, tenant string) error {
	return (&learnedState{seen: map[string]int64{}, counts: newCounts(nil)}).save(ctx, src, tenant)
}
