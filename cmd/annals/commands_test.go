package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEveryCommandHasHelp(t *testing.T) {
	tm := newTestMain(t)
	m := NewMain()
	for _, c := range m.commands() {
		out, _, err := tm.run("", c.name, "--help")
		if err != nil {
			t.Errorf("%s --help: %v", c.name, err)
		}
		if !strings.Contains(out, "Usage: annals "+c.name) {
			t.Errorf("%s --help printed:\n%s", c.name, out)
		}
	}
	out := tm.mustRun("", "--help")
	for _, c := range m.commands() {
		if !strings.Contains(out, c.name) {
			t.Errorf("annals --help does not mention %s", c.name)
		}
	}
}

func TestUnknownCommandIsAUsageError(t *testing.T) {
	tm := newTestMain(t)
	_, _, err := tm.run("", "frobnicate")
	if err == nil || exitCode(err) != 2 {
		t.Errorf("err = %v (exit %d), want a usage error with exit 2", err, exitCode(err))
	}
}

func TestDefaultDatabasePath(t *testing.T) {
	tm := newTestMain(t)
	m := NewMain()
	m.HomeDir = func() (string, error) { return "/home/u", nil }
	for _, tc := range []struct {
		env  map[string]string
		flag string
		want string
	}{
		{map[string]string{}, "", "/home/u/.local/share/annals/annals.db"},
		{map[string]string{"XDG_DATA_HOME": "/data"}, "", "/data/annals/annals.db"},
		{map[string]string{"XDG_DATA_HOME": "relative"}, "", "/home/u/.local/share/annals/annals.db"},
		{map[string]string{"ANNALS_DB": "/x/a.db", "XDG_DATA_HOME": "/data"}, "", "/x/a.db"},
		{map[string]string{"ANNALS_DB": "/x/a.db"}, "/flag.db", "/flag.db"},
	} {
		m.Getenv = func(k string) string { return tc.env[k] }
		got, err := m.dbPath(tc.flag)
		if err != nil || got != tc.want {
			t.Errorf("env %v flag %q: path = %q, %v; want %q", tc.env, tc.flag, got, err, tc.want)
		}
	}
	_ = tm
}

func TestDefaultDatabaseIsCreatedUnderXDGDataHome(t *testing.T) {
	tm := newTestMain(t)
	dataHome := filepath.Join(t.TempDir(), "data")
	tm.env = map[string]string{"XDG_DATA_HOME": dataHome}
	tm.mustRun(twoChats, "ingest")
	fi, err := os.Stat(filepath.Join(dataHome, "annals", "annals.db"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("database mode = %o, want 600", fi.Mode().Perm())
	}
}

func TestVersion(t *testing.T) {
	tm := newTestMain(t)
	if out := tm.mustRun("", "version"); !strings.HasPrefix(out, "annals ") {
		t.Errorf("version = %q", out)
	}
	var v versionInfo
	if err := json.Unmarshal([]byte(tm.mustRun("", "version", "--json")), &v); err != nil || v.Version == "" || v.GoVersion == "" {
		t.Errorf("version --json = %+v, %v", v, err)
	}
}
