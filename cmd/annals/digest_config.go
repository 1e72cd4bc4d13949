package main

import (
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/internal/cron"
)

// DigestConfig is the digest: block (docs/CONFIG.md): the background digest worker of annals
// serve and its thresholds, and the scheduled recap. Durations are Go durations ("10m",
// "12h"); empty means the default.
type DigestConfig struct {
	// Enabled runs the worker in annals serve; absent means on (enabledOr). With the default,
	// offline summarizer a digest costs CPU only; with a model provider each one spends tokens,
	// recorded as a recap run of the chat.
	Enabled       *bool  `yaml:"enabled"`
	Idle          string `yaml:"idle"`
	MinNewEntries int64  `yaml:"min_new_entries"`
	Stale         string `yaml:"stale"`
	Backoff       string `yaml:"backoff"`
	MaxBackoff    string `yaml:"max_backoff"`
	Lease         string `yaml:"lease"`
	// Every is how often the worker looks for due chats (default 1m).
	Every string `yaml:"every"`
	// Schedule is a cron expression (5 fields, in the server's time zone) for the scheduled
	// recap.
	Schedule string `yaml:"schedule"`
}

// on says whether the due-chat worker runs: digest.enabled, on when absent.
func (d DigestConfig) on() bool { return d.Enabled == nil || *d.Enabled }

// explicit says whether digest.enabled was written (true) rather than the default.
func (d DigestConfig) explicit() bool { return d.Enabled != nil && *d.Enabled }

// defaultDigestEvery is how often the worker looks for due chats.
const defaultDigestEvery = time.Minute

// digestDurations names each duration key with its field, for parsing and messages.
func (d DigestConfig) durations() []struct {
	key, value string
} {
	return []struct{ key, value string }{
		{"idle", d.Idle}, {"stale", d.Stale}, {"backoff", d.Backoff}, {"max_backoff", d.MaxBackoff},
		{"lease", d.Lease}, {"every", d.Every},
	}
}

// validate checks the block.
func (d DigestConfig) validate() error {
	_, _, _, err := d.parse()
	return err
}

// parse checks the block and returns the policy, how often the worker looks, and the schedule
// (nil without one).
func (d DigestConfig) parse() (history.DigestPolicy, time.Duration, *cron.Schedule, error) {
	got := map[string]time.Duration{}
	for _, kv := range d.durations() {
		if kv.value == "" {
			continue
		}
		v, err := time.ParseDuration(kv.value)
		if err != nil || v <= 0 || v > 365*24*time.Hour {
			return history.DigestPolicy{}, 0, nil, annals.Errorf(annals.EINVALID, "digest.%s %q is not a duration from 1s to 8760h (write it like 90s, 10m or 12h)", kv.key, kv.value)
		}
		got[kv.key] = v
	}
	if d.MinNewEntries < 0 || d.MinNewEntries > 1_000_000 {
		return history.DigestPolicy{}, 0, nil, annals.Errorf(annals.EINVALID, "digest.min_new_entries %d is out of range (1 to 1000000; 0 means %d)", d.MinNewEntries, history.DefaultDigestMinNewEntries)
	}
	p := history.DigestPolicy{
		Idle: got["idle"], MinNewEntries: d.MinNewEntries, Stale: got["stale"], Backoff: got["backoff"],
		MaxBackoff: got["max_backoff"], Lease: got["lease"],
	}.WithDefaults()
	every := got["every"]
	if every == 0 {
		every = defaultDigestEvery
	}
	var sched *cron.Schedule
	if d.Schedule != "" {
		s, err := cron.Parse(d.Schedule)
		if err != nil {
			return history.DigestPolicy{}, 0, nil, annals.Errorf(annals.EINVALID, "digest.schedule: %v", err)
		}
		sched = s
	}
	return p, every, sched, nil
}
