package bench

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annals-dev/annals/corpus"
)

func TestGenerateWritesTheCorpusAndReportsIt(t *testing.T) {
	file := filepath.Join(t.TempDir(), "c.jsonl")
	opts := corpus.Options{Seed: 7, Entries: 300, Chats: 5, Tenants: 2, Users: 3, Agents: 2}
	var calls int
	rep, err := Generate(context.Background(), GenOptions{Corpus: opts, Out: file, Progress: func(int) { calls++ }})
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Out != file || rep.Entries != 300 || rep.Chats != 5 || rep.Bytes != fi.Size() || rep.Options.Tenants != 2 || calls == 0 {
		t.Errorf("got report %+v (progress called %d times) for a file of %d bytes", rep, calls, fi.Size())
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Wrote " + file + ": 300 entries in 5 chats", "seed 7; 2 tenants, 3 users, 2 agents", "zqxrare 1"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("report %q lacks %q", text.String(), want)
		}
	}

	// On standard output, the same options give the same bytes.
	var out bytes.Buffer
	rep, err = Generate(context.Background(), GenOptions{Corpus: opts, Out: "-", Stdout: &out})
	if err != nil {
		t.Fatal(err)
	}
	onDisk, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Out != "standard output" || !bytes.Equal(out.Bytes(), onDisk) {
		t.Errorf("standard output (%s) holds %d bytes, the file %d; want the same corpus", rep.Out, out.Len(), len(onDisk))
	}
}

func TestGenerateRemovesAnInterruptedFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "c.jsonl")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Generate(ctx, GenOptions{Corpus: corpus.Options{Entries: 1000}, Out: file})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want the cancellation", err)
	}
	if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a half-written corpus is left behind: %v", err)
	}
}
