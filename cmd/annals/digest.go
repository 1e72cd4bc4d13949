package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
)

// Background digests (docs/PROVIDERS.md, "Digests in the background"): annals digest --once
// digests every chat that is due (for cron), annals digest --since refreshes every chat active
// since then; the worker of annals serve does both as it runs (digest_worker.go). The policy is
// history's (history/digest.go); this file parses flags and prints.

func runDigest(ctx context.Context, m *Main, args []string) error {
	fs := m.flagSet("digest", "(--once | --since DURATION) [flags]", "Summarise chats in the background's stead, and give untitled chats a generated title\n"+
		"(a person's title is never replaced). --once digests every chat that is due now: never\n"+
		"digested and idle (digest.idle, 10m), or digest.min_new_entries (8) new entries since its\n"+
		"digest, or changed and digested longer ago than digest.stale (12h); a chat that failed\n"+
		"waits its backoff. --since refreshes every chat active in that time (24h, 90m) whose\n"+
		"transcript changed since its digest. Uses the configured summarizer (docs/PROVIDERS.md).")
	c := commonFlags(fs)
	once := fs.Bool("once", false, "digest every chat that is due now, then exit (for cron)")
	since := fs.String("since", "", "refresh the chats active in this last stretch of time (a duration: 24h, 90m) or since an RFC 3339 time")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := m.parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("digest takes no arguments, got %q", fs.Arg(0))
	}
	if *once == (*since != "") {
		return usagef("digest needs one of --once (the chats due now) or --since DURATION (the chats active since)")
	}
	var from time.Time
	if *since != "" {
		t, err := parseSince(*since, time.Now())
		if err != nil {
			return err
		}
		from = t
	}
	a, err := m.open(ctx, c, false)
	if err != nil {
		return err
	}
	svc, ok := a.base.(*history.Service)
	if !ok {
		return annals.Errorf(annals.EINTERNAL, "digest needs the local history service")
	}
	policy, _, _, err := a.cfg.Digest.parse()
	if err != nil {
		return err
	}
	bar := !*asJSON && m.IsTerminal(m.Stderr)
	progress := func(p history.DigestProgress) {
		if bar {
			fmt.Fprintf(m.Stderr, "\r\033[Kdigesting: %d checked, %d digested, %d failed", p.Checked, p.Digested, p.Failed)
		}
	}
	var p history.DigestProgress
	if *once {
		p, err = svc.DigestDue(a.ctx, digestHolder(), policy, progress)
	} else {
		p, err = svc.DigestSince(a.ctx, digestHolder(), from, policy, progress)
	}
	if bar {
		fmt.Fprint(m.Stderr, "\r\033[K")
	}
	if err != nil {
		return err
	}
	if err := m.printDigest(p, *asJSON); err != nil {
		return err
	}
	if p.Failed > 0 {
		return annals.Errorf(annals.EUNAVAILABLE, "%s could not be digested; each is tried again after its backoff (digest.backoff)", plural(p.Failed, "chat", "chats"))
	}
	return nil
}

// printDigest prints what a digest run did.
func (m *Main) printDigest(p history.DigestProgress, asJSON bool) error {
	if asJSON {
		return json.NewEncoder(m.Stdout).Encode(p)
	}
	_, err := fmt.Fprintf(m.human(), "digested %s (%d titled), %d failed, %d changed while digesting, %d held by another worker; %d checked\n",
		plural(p.Digested, "chat", "chats"), p.Titled, p.Failed, p.Changed, p.Busy, p.Checked)
	return err
}

// parseSince reads --since: a duration back from now, or an RFC 3339 time.
func parseSince(v string, now time.Time) (time.Time, error) {
	if d, err := time.ParseDuration(v); err == nil {
		if d <= 0 {
			return time.Time{}, usagef("--since %q must be a positive duration", v)
		}
		return now.Add(-d), nil
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t, nil
	}
	return time.Time{}, usagef("--since %q is neither a duration (24h, 90m) nor an RFC 3339 time (2026-12-01T04:00:00Z)", v)
}

// digestHolder names this process in the digest leases: host, process id and a random part, so
// two processes on one host (or one database) never share a name.
func digestHolder() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "host"
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%s/%d/%s", strings.ReplaceAll(host, "/", "_"), os.Getpid(), hex.EncodeToString(b[:]))
}
