package importer_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/importer"
	"github.com/annals-dev/annals/importer/importertest"
	"github.com/annals-dev/annals/importer/reader"
	"github.com/annals-dev/annals/redact"
)

// A title derived from a prompt is redacted before it is cut to 80 characters: cut first, a
// secret the cut runs through is no longer the value the redactor knows, and its first 65
// characters were stored in the title (and its derived_title attribute) while the transcript
// had it masked.
func TestDerivedTitleIsRedactedBeforeItIsCut(t *testing.T) {
	secret := "s3cr3t-" + strings.Repeat("Qx9Lm2Vp4R", 7) + "abc" // 80 characters, from 15 to 95
	prompt := "Why does token " + secret + " fail on deploy?"
	red, err := redact.New(redact.Config{SecretEnvValues: []string{secret}})
	if err != nil {
		t.Fatal(err)
	}
	line, err := json.Marshal(map[string]any{
		"parentUuid": nil, "isSidechain": false, "userType": "external", "cwd": "/home/dev/app", "sessionId": "sess-secret",
		"version": "1.0.108", "type": "user", "message": map[string]any{"role": "user", "content": prompt},
		"uuid": "u1", "timestamp": "2025-06-01T08:00:00.000Z",
	})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "sess-secret.jsonl")
	importertest.WriteFile(t, path, append(line, '\n'))

	db := openDB(t)
	clean := func(s string) string { out, _ := red.RedactText(s); return out }
	store := struct {
		*history.RedactingCapture
		annals.ImportStateStore
	}{&history.RedactingCapture{Store: db, Redactor: red}, db}
	im := importer.New(store, importer.Options{Formats: importertest.FormatsNamed(t, "claude-code"),
		Titles: &importer.StoreTitles{Store: db, Clean: clean}, Redact: clean})
	importertest.ImportAll(t, im, path)

	c, err := db.FindChatByID(context.Background(), "claude-code:sess-secret")
	if err != nil {
		t.Fatal(err)
	}
	for what, got := range map[string]string{"title": c.Title, "derived title": c.Attributes[reader.DerivedTitleAttr]} {
		if strings.Contains(got, secret[:12]) || !strings.Contains(got, "[redacted:secret_env]") {
			t.Errorf("the chat's %s is %q; want the secret masked whole, none of it kept", what, got)
		}
	}
}
