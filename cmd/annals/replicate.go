package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/replicate"
)

const replicateUsage = `Usage: annals replicate push|pull|status|verify|retry|backfill|new-host-id [flags]

Replicate this host's history to the remote of the config file's remote block
(remote: {endpoint: URL, api_key_env: VAR}; the key comes from ANNALS_REMOTE_KEY, then the
variable named by api_key_env, then api_key). 'annals serve' and 'annals import --watch' both
push on their own while they run, each write of theirs at once; a one-shot import or ingest only
queues, for the next of those or 'replicate push'. These commands act once (docs/REPLICATION.md).

  push         push every queued lane once and print what went
  pull         follow the remote's change feed into the mirror (--mirror PATH; read it with
               'annals list|search|show|export --mirror'), and take back the curation of this
               host's chats made elsewhere; --follow keeps following
  status       the queue per lane, quarantined lanes with their diagnostic, operations given up, the last push (no network)
  verify       push, then compare every lane (head and the remote's copy of its chat) with the
               remote, reset the lanes the remote lost or holds short and push them again
               (--no-repair: only report; --reset ID: also the lane of a chat another
               database writes, the remote taking this host's copy); exits 1 on a difference left
  retry        --chat ID: release a quarantined lane and push it again; with --drop, give up
               the operation the remote refused (shown first; asks, or --yes) and push the rest
               (verify reports it and never sends it again; verify --reset ID sends the chat whole)
  backfill     queue the chats recorded before the outbox was on (done once on its own when a
               remote is first configured)
  new-host-id  take a new host id on a copied database (the copy, never the original)`

func runReplicate(ctx context.Context, m *Main, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		w := m.Stdout
		if len(args) == 0 {
			w = m.Stderr
		}
		fmt.Fprintln(w, replicateUsage)
		if len(args) == 0 {
			return usagef("replicate needs a subcommand: push, pull, status, verify, retry, backfill or new-host-id")
		}
		return nil
	}
	sub := map[string]string{
		"push":        "Push every queued lane to the remote once.",
		"pull":        "Follow the remote's change feed into the mirror and take back this host's chats' curation.",
		"status":      "Show the outbox: pending operations per lane, quarantined lanes, operations given up, the last push.",
		"verify":      "Push, compare every lane with the remote, and repair the lanes the remote lost.",
		"retry":       "Release a quarantined lane (--chat ID) and push it again, or --drop its refused operation.",
		"new-host-id": "Take a new host id on a copied database, so that it may push.",
		"backfill":    "Queue every chat that has no lane yet (recorded before the outbox was on).",
	}
	help, ok := sub[args[0]]
	if !ok {
		return usagef("unknown replicate subcommand %q (want push, pull, status, verify, retry, backfill or new-host-id)", args[0])
	}
	fs := m.flagSet("replicate "+args[0], "[flags]", help)
	c := commonFlags(fs)
	c.local = true
	asJSON := fs.Bool("json", false, "print the answer as JSON")
	chat := fs.String("chat", "", "the quarantined lane (chat id) to release (retry)")
	noRepair := fs.Bool("no-repair", false, "only report the differences; do not reset the lanes that differ (verify)")
	reset := fs.StringArray("reset", nil, "also reset this chat's lane where another database writes it: the remote takes this host's copy (verify; repeatable)")
	drop := fs.Bool("drop", false, "drop the operation the remote refused instead of sending it again; shows it and asks first (retry)")
	yes := fs.Bool("yes", false, "drop without asking (retry --drop)")
	force := fs.Bool("force", false, "take a new host id although this database is where its id was created (new-host-id)")
	mirror := fs.String("mirror", "", "the mirror database (pull; default remote.mirror, else mirror.db beside the default database)")
	follow := fs.Bool("follow", false, "keep following the feed until interrupted (pull)")
	if err := m.parse(fs, args[1:]); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("replicate %s takes no arguments, got %q", args[0], fs.Arg(0))
	}
	a, err := m.open(ctx, c, false)
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(m.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	out := func(v any, human func(w io.Writer)) error {
		if *asJSON {
			return json.NewEncoder(m.Stdout).Encode(v)
		}
		human(m.human())
		return nil
	}
	switch args[0] {
	case "status":
		return replicateStatus(ctx, a, out)
	case "new-host-id":
		return replicateNewHostID(ctx, a, *force, out)
	case "pull":
		return m.replicatePull(ctx, a, *mirror, *follow, *asJSON, logger, out)
	}
	p, _, err := m.pusher(ctx, a, logger)
	if err != nil {
		return err
	}
	switch args[0] {
	case "backfill":
		bs, ok := a.store.(replicate.BackfillStore)
		if !ok {
			return annals.Errorf(annals.ENOTIMPLEMENTED, "this database backend cannot queue its history for a remote")
		}
		rep, err := replicate.Backfill(ctx, bs, nil)
		if err != nil {
			return err
		}
		return out(rep, func(w io.Writer) {
			fmt.Fprintf(w, "backfill: %s, %d queued, %d already had their lane\n", plural(rep.Chats, "chat", "chats"), rep.Queued, rep.Skipped)
		})
	case "retry":
		if *chat == "" {
			return usagef("replicate retry needs --chat ID (the lane to release; see 'annals replicate status')")
		}
		if *drop {
			return m.replicateDrop(ctx, p, *chat, *yes, *asJSON, out)
		}
		s := a.store.(replicate.Store)
		released, err := s.ReleaseLane(ctx, *chat)
		if err != nil {
			return err
		}
		if !released {
			return annals.Errorf(annals.ENOTFOUND, "lane %q is not quarantined (see 'annals replicate status')", *chat)
		}
		fallthrough
	case "push":
		if err := p.Check(ctx); err != nil {
			return err
		}
		rep, err := p.PushOnce(ctx)
		if err != nil {
			return err
		}
		return out(rep, func(w io.Writer) {
			fmt.Fprintf(w, "pushed %s from %s; %s waiting to retry, %d quarantined\n", plural(rep.Pushed, "operation", "operations"), plural(rep.Lanes, "lane", "lanes"), plural(len(rep.Waiting), "lane", "lanes"), len(rep.Quarantined))
		})
	}
	if err := p.Check(ctx); err != nil {
		return err
	}
	if *noRepair && len(*reset) > 0 {
		return usagef("--no-repair only reports; --reset repairs: give one of them")
	}
	return replicateVerify(ctx, p, !*noRepair, *reset, out)
}

func replicateStatus(ctx context.Context, a *app, out func(any, func(io.Writer)) error) error {
	s, ok := a.store.(replicate.Store)
	if !ok {
		return annals.Errorf(annals.ENOTIMPLEMENTED, "this database backend cannot replicate")
	}
	endpoint := ""
	if a.cfg.Remote != nil {
		endpoint, _ = replicate.ParseEndpoint(a.cfg.Remote.Endpoint)
	}
	st, err := replicate.ReadStatus(ctx, s, endpoint)
	if err != nil {
		return err
	}
	return out(st, func(w io.Writer) {
		switch {
		case st.Host == nil:
			fmt.Fprintln(w, "host: none yet (the outbox was never turned on: configure a remote block)")
		case st.Host.Moved:
			fmt.Fprintf(w, "host %s: MOVED, pushing is refused: %s\n", st.Host.Identity.ID, st.Host.Reason)
		default:
			fmt.Fprintf(w, "host %s (outbox on: %v)\n", st.Host.Identity.ID, st.Host.Identity.Outbox)
		}
		if st.Endpoint != "" {
			fmt.Fprintf(w, "remote %s\n", st.Endpoint)
		}
		fmt.Fprintf(w, "pending: %d operations in %d lanes, %d bytes", st.PendingOps, len(st.Lanes), st.PendingBytes)
		if !st.OldestAt.IsZero() {
			fmt.Fprintf(w, ", oldest %s ago", time.Since(st.OldestAt).Round(time.Second))
		}
		fmt.Fprintln(w)
		if st.LastPush.IsZero() {
			fmt.Fprintln(w, "last push: never")
		} else {
			fmt.Fprintf(w, "last push: %s\n", st.LastPush.UTC().Format(time.RFC3339))
		}
		for _, q := range st.Quarantined {
			fmt.Fprintf(w, "quarantined %s at %s: op %s, %d %s: %s (release with 'annals replicate retry --chat %s')\n",
				q.ChatID, q.At.UTC().Format(time.RFC3339), q.OpID, q.Status, q.Code, q.Message, q.ChatID)
		}
		for _, g := range st.GivenUp {
			fmt.Fprintf(w, "given up %s at %s: op %s (%s, lane seq %d), %s: %s (never sent; 'annals replicate verify --reset %s' sends the chat whole)\n",
				g.ChatID, g.DroppedAt.UTC().Format(time.RFC3339), g.OpID, g.Kind, g.LaneSeq, g.Code, g.Message, g.ChatID)
		}
	})
}

func replicateNewHostID(ctx context.Context, a *app, force bool, out func(any, func(io.Writer)) error) error {
	s, ok := a.store.(replicate.Store)
	if !ok {
		return annals.Errorf(annals.ENOTIMPLEMENTED, "this database backend cannot replicate")
	}
	check, err := s.CheckHost(ctx)
	if err != nil {
		return err
	}
	if !check.Moved && !force {
		return annals.Errorf(annals.ECONFLICT, "this database is where its host id %s was created; take a new id only on a copy (or pass --force)", check.Identity.ID)
	}
	id, err := s.NewHostID(ctx)
	if err != nil {
		return err
	}
	return out(id, func(w io.Writer) {
		fmt.Fprintf(w, "new host id %s (was %s); operations queued before the copy keep their ids\n", id.ID, check.Identity.ID)
	})
}
