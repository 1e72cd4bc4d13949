package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestMigratePrintsTheSchemaVersion(t *testing.T) {
	tm := newTestMain(t)
	out := tm.mustRun("", "migrate", "--json")
	var rep migrateReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Version < 1 || rep.Backend != "sqlite" {
		t.Errorf("migrate --json = %q (%v)", out, err)
	}
	pg := mustPostgresSchema(t)
	out = tm.mustRun("", "migrate", "--db", pg)
	if !strings.Contains(out, "postgres database") || !strings.Contains(out, "schema version") {
		t.Errorf("migrate on PostgreSQL printed %q", out)
	}
	// Every command takes a postgres:// database.
	tm.mustRun(twoChats, "ingest", "--db", pg, "-")
	if out := tm.mustRun("", "list", "--db", pg); !strings.Contains(out, "Deploy the emag.ro shop") {
		t.Errorf("list on PostgreSQL = %q", out)
	}
	if out := tm.mustRun("", "search", "--db", pg, "emag.ro"); !strings.Contains(out, "c1") {
		t.Errorf("search on PostgreSQL = %q", out)
	}
}

func TestDisplayLocationHidesThePassword(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u:sekret@h:5432/db?sslmode=disable":    "postgres://u:xxxxx@h:5432/db?sslmode=disable",
		"postgresql://h/db?password=sekret":                "postgresql://h/db?password=xxxxx",
		"sqlite:/tmp/a.db":                                 "/tmp/a.db",
		"/tmp/b.db":                                        "/tmp/b.db",
		"postgres://u@h/db?search_path=s&pool_max_conns=8": "postgres://u@h/db?search_path=s&pool_max_conns=8",
	} {
		if got := displayLocation(in); got != want {
			t.Errorf("displayLocation(%q) = %q, want %q", in, got, want)
		}
	}
}
