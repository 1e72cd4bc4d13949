package main

import (
	"fmt"

	"github.com/spf13/pflag"
)

// Remote query mode (docs/REPLICATION.md, "Remote query mode"): on a host whose config has a
// remote block, the history reads — list, search, show, export, related, usage — ask the shared collection, with the
// remote's key, as `--server ENDPOINT --key KEY` would. They never fall back to the local
// database when the remote cannot answer: a remote that is down is an error. `--local` (or an
// explicit --db) asks the local database; --server and ANNALS_SERVER still win over the block.
// The commands that also write — mcp, browse, serve's local-mode callers — read the remote the
// same way and write here (remote_reads.go).

// localFlag is --local of a command whose reads go to the remote in remote query mode.
func localFlag(fs *pflag.FlagSet, name string) *bool {
	return fs.Bool(name, false, "ask the local database even though a remote collection is configured (remote query mode)")
}

// readFlags are the common flags of a history read that remote query mode applies to, with
// --local.
func readFlags(fs *pflag.FlagSet) *common {
	c := commonFlags(fs)
	c.queryRemote = true
	c.forceLocal = localFlag(fs, "local")
	c.mirror = fs.Bool("mirror", false, "read the mirror of the remote collection kept by 'annals replicate pull' (offline; remote.mirror in the config, else mirror.db beside the default database)")
	return c
}

// remoteQuery returns the server and key a history read asks in remote query mode ("" when it
// asks the local database: no remote block, --local, --db, or not a read).
func (m *Main) remoteQuery(c *common) (server, key string, err error) {
	if !(c.queryRemote || c.remoteReads) || (c.forceLocal != nil && *c.forceLocal) || (c.mirror != nil && *c.mirror) || *c.db != "" {
		return "", "", nil
	}
	cfg, err := m.loadConfig(*c.config)
	if err != nil || cfg.Remote == nil {
		return "", "", err
	}
	endpoint, key, warning, err := m.remoteKey(cfg.Remote)
	if err != nil {
		return "", "", err
	}
	if warning != "" {
		fmt.Fprintln(m.Stderr, "annals: warning:", warning)
	}
	return endpoint, key, nil
}
