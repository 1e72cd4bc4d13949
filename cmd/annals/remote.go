package main

import (
	"context"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/httpapi"
)

// Client mode: `annals --server URL --key KEY <command>` (or ANNALS_SERVER and ANNALS_KEY) runs
// a command against an annals server instead of a local database. The history commands (list,
// search, show, export, rename, tag, pin, archive, recap, resume, related, delete), ingest,
// import (import_remote.go) and mcp behave as they do locally; the server decides who the caller
// is from the key. Commands that need the database itself refuse: the localOnly commands
// (cli.go) before they run. The embedding backfill (related --backfill, reindex --embeddings)
// runs on the server, for an admin key (POST /v1/admin/embeddings).

// historyAPI is what commands call: the typed history service (*history.Service locally, the
// HTTP client against a server) and the embedding backfill (the server's, over HTTP).
type historyAPI interface {
	annals.HistoryService
	Backfill(ctx context.Context, progress func(history.BackfillProgress)) (history.BackfillProgress, error)
}

var _ historyAPI = (*history.Service)(nil)

// takeGlobalFlags removes the leading --server URL and --key KEY (also --server=URL) from args.
// They become the values of ANNALS_SERVER and ANNALS_KEY for this run, so every command sees
// one source of truth.
func (m *Main) takeGlobalFlags(args []string) ([]string, error) {
	set := map[string]string{}
	for {
		if len(args) == 0 {
			if len(set) > 0 {
				return nil, usagef("no command given after the global flags")
			}
			return args, nil
		}
		a := args[0]
		var name, value string
		switch {
		case a == "--server" || a == "-server" || a == "--key" || a == "-key":
			if len(args) < 2 {
				return nil, usagef("%s needs a value", a)
			}
			name, value, args = strings.TrimLeft(a, "-"), args[1], args[2:]
		case strings.HasPrefix(a, "--server=") || strings.HasPrefix(a, "--key="):
			name, value, _ = strings.Cut(strings.TrimLeft(a, "-"), "=")
			args = args[1:]
		default:
			if len(set) > 0 {
				getenv := m.Getenv
				m.Getenv = func(k string) string {
					if v, ok := set[k]; ok {
						return v
					}
					return getenv(k)
				}
			}
			return args, nil
		}
		set["ANNALS_"+strings.ToUpper(name)] = value
	}
}

// openRemote builds the app over the HTTP client when a server is configured (--server or
// ANNALS_SERVER) and the command may run remotely. ok is false when the command should open
// the local database.
func (m *Main) openRemote(ctx context.Context, c *common) (a *app, ok bool, err error) {
	server, key := m.Getenv("ANNALS_SERVER"), m.Getenv("ANNALS_KEY")
	if server == "" && c.queryRemote {
		if server, key, err = m.remoteQuery(c); err != nil {
			return nil, true, err
		}
	}
	if server == "" || c.local {
		return nil, false, nil
	}
	if *c.db != "" {
		return nil, true, usagef("--db and --server both given: a command runs against a local database or a server, not both")
	}
	cfg, err := m.loadConfig(*c.config)
	if err != nil {
		return nil, true, err
	}
	client, err := httpapi.NewClient(server, key)
	if err != nil {
		return nil, true, err
	}
	// No store in client mode: every command reaches the server through the history service
	// (the client implements annals.HistoryService and the capture path); the ones that need
	// the database itself say so.
	base := remoteService{client}
	return &app{
		cfg:     cfg,
		capture: client,
		base:    base,
		reads:   base,
		svc:     cliService{history.For(base, cfg.cliPrincipal(), history.Access{Local: true}), base},
		ctx:     ctx,
	}, true, nil
}

// remoteService is the client as the CLI's history.
type remoteService struct{ *httpapi.Client }

// needsLocal refuses, as a usage mistake, what only a local database can do.
func needsLocal(what string) error {
	return usagef("%s needs a local database; it is not available through --server (run it on the server's machine with --db, or without --server and ANNALS_SERVER)", what)
}
