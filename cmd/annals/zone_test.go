package main

import (
	"os"
	"testing"
	"time"
)

// TestMain pins the zone human output is printed in: the CLI prints times in the machine's
// local zone, and the recorded answers (testdata/golden) were written in UTC, so a developer
// whose TZ is elsewhere must get the same answers as CI.
func TestMain(m *testing.M) {
	time.Local = time.UTC
	os.Exit(m.Run())
}
