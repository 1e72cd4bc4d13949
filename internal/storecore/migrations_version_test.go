package storecore

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestReadMigrationsRefusesTwoFilesWithOneVersion(t *testing.T) {
	fsys := fstest.MapFS{
		"migrations/0001_init.sql":  {Data: []byte("SELECT 1;")},
		"migrations/0002_a.sql":     {Data: []byte("SELECT 2;")},
		"migrations/0002_b.sql":     {Data: []byte("SELECT 3;")},
		"migrations/0003_after.sql": {Data: []byte("SELECT 4;")},
	}
	_, err := ReadMigrations(fsys)
	if err == nil || !strings.Contains(err.Error(), "0002_a.sql and 0002_b.sql share version 2") {
		t.Fatalf("ReadMigrations = %v, want the clash named", err)
	}
	delete(fsys, "migrations/0002_b.sql")
	ms, err := ReadMigrations(fsys)
	if err != nil || len(ms) != 3 || Latest(ms) != 3 {
		t.Fatalf("ReadMigrations = %v, %v; want 3 migrations up to 3", ms, err)
	}
}
