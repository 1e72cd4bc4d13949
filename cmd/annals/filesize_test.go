package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// maxFileLines bounds every Go file of the command: one purpose a file (issue 24).
const maxFileLines = 250

// TestNoFileOverTheBound keeps cmd/annals in files of at most maxFileLines lines, tests
// included: a file that grows past it is split by purpose.
func TestNoFileOverTheBound(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if n := bytes.Count(b, []byte("\n")); n > maxFileLines {
			t.Errorf("%s has %d lines (at most %d): split it by purpose", f, n, maxFileLines)
		}
	}
}
