package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cliRun records one command line: its exit code, standard output and standard error.
func cliRun(g *golden, tm *testMain, stdin string, args ...string) {
	g.t.Helper()
	out, errOut, err := tm.run(stdin, args...)
	answer := "exit 0"
	if err != nil {
		answer = fmt.Sprintf("exit %d\nerror: %s", exitCode(err), describe(err))
	}
	g.record("annals "+strings.Join(args, " "), answer+"\n--- stdout\n"+out+"--- stderr\n"+errOut)
}

// goldenCLICommands runs every history command, its JSON form and its main errors.
func goldenCLICommands(g *golden, tm *testMain) {
	for _, args := range [][]string{
		{"list"},
		{"list", "--json"},
		{"list", "--scope", "global"},
		{"list", "--tag", "ops", "--json"},
		{"list", "--status", "bogus"},
		{"list", "extra"},
		{"search", "deploy"},
		{"search", "deploy", "--json"},
		{"search", "deploy", "--explain"},
		{"search", "deploy", "--rank", "lexical", "--explain"},
		{"search", "permission", "--entries"},
		{"search", "--in", "tools", "permission", "--json"},
		{"search", `"unclosed`},
		{"show", "acme-deploy"},
		{"show", "acme-deploy", "--json"},
		{"show", "acme-deploy", "--conversation"},
		{"show", "acme-deploy", "--around", "2", "--context", "0"},
		{"show", "missing"},
		{"show"},
		{"export", "acme-deploy"},
		{"export", "acme-deploy", "--format", "json"},
		{"export", "acme-deploy", "--format", "pdf"},
		{"related", "acme-deploy"},
		{"related", "--query", "cache after deploy", "--json"},
		{"resume", "acme-deploy"},
		{"resume", "acme-deploy", "--json"},
		{"rename", "acme-deploy", "Deploy the shop, renamed"},
		{"rename", "acme-deploy", "Renamed again", "--json"},
		{"tag", "acme-deploy", "ops", "fixed", "--description", "New description"},
		{"tag", "acme-deploy", "--clear", "--json"},
		{"pin", "acme-deploy"},
		{"pin", "acme-deploy", "--off", "--json"},
		{"archive", "acme-review"},
		{"list", "--archived"},
		{"archive", "acme-review", "--restore"},
		{"recap", "acme-deploy"},
		{"recap", "acme-deploy", "--json"},
		{"delete", "acme-bob"},
		{"delete", "acme-bob", "--yes"},
		{"show", "acme-bob"},
		{"nope"},
	} {
		cliRun(g, tm, "", args...)
	}
}

func TestGoldenCLI(t *testing.T) {
	g := newGolden(t, "cli.txt")
	tm := newTestMain(t)
	cliRun(g, tm, goldenChats, "ingest", "-")
	cliRun(g, tm, goldenChats, "ingest", "--json")
	cliRun(g, tm, "{\"type\":\"chat\",\"id\":\"x\"}\n{\"type\":\"robot\"}\n", "ingest")
	goldenCLICommands(g, tm)
}

// TestGoldenCLIRemote runs the same commands in client mode, against a server, as a key.
func TestGoldenCLIRemote(t *testing.T) {
	g := newGolden(t, "cli_remote.txt")
	gs := newGoldenServer(t, g)
	tm := gs.tm
	tm.env["ANNALS_SERVER"], tm.env["ANNALS_KEY"] = gs.s.url, gs.keys["operator"]
	goldenCLICommands(g, tm)
	cliRun(g, tm, "{\"type\":\"chat\",\"id\":\"remote-1\",\"created_at\":\"2025-04-01T00:00:00Z\"}\n", "ingest", "--json")
	tm.env["ANNALS_KEY"] = gs.keys["member"]
	cliRun(g, tm, "", "list")
	cliRun(g, tm, "", "delete", "acme-review", "--yes")
	tm.env["ANNALS_KEY"] = ""
	cliRun(g, tm, "", "list")
}

// TestGoldenCLIPrincipals runs commands as configured principals and in read-only mode.
func TestGoldenCLIPrincipals(t *testing.T) {
	g := newGolden(t, "cli_principals.txt")
	tm := newTestMain(t)
	tm.mustRun(goldenChats, "ingest", "-")
	cfg := filepath.Join(tm.home, "config.yaml")
	if err := os.WriteFile(cfg, []byte("principal:\n  tenant: acme\n  user: alice\n  history_scope: [self, user, tenant]\n"+goldenConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	tm.env["ANNALS_CONFIG"] = cfg
	for _, args := range [][]string{
		{"list"},
		{"list", "--scope", "global"},
		{"show", "other-deploy"},
		{"rename", "acme-bob", "not mine"},
		{"rename", "acme-deploy", "mine"},
		{"delete", "acme-bob", "--yes"},
	} {
		cliRun(g, tm, "", args...)
	}
	var keys []map[string]any
	cliRun(g, tm, "", "keys", "create", "--tenant", "acme", "--name", "k")
	if err := json.Unmarshal([]byte(tm.mustRun("", "keys", "list", "--json")), &keys); err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		g.hide(fmt.Sprint(k["id"]), "<key>")
	}
	cliRun(g, tm, "", "keys", "list")
}
