package tui_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/httpapi"
)

// The browser over the HTTP client (annals --server URL browse) against a real read-only server
// in local mode: it searches and reads the transcript through the API, and the server's refusal
// of a pin is the status line.
func TestBrowsingAReadOnlyServer(t *testing.T) {
	f := newFixture(t)
	zoo(f)
	srv := httpapi.New(httpapi.Config{Addr: "127.0.0.1:0", Service: f.svc, ReadOnly: true})
	if err := srv.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	client, err := httpapi.NewClient(srv.URL(), "")
	if err != nil {
		t.Fatal(err)
	}
	d := newDriver(t, f.opts(client), 120, 30)
	d.typeText("penguins")
	d.settle()
	d.keys("enter", "enter")
	d.settle()
	if s := d.screen(); !strings.Contains(s, "Forty-two penguins.") || !strings.Contains(s, "1 of 1 chat matches") {
		t.Fatalf("the transcript through the server:\n%s", s)
	}
	d.keys("p")
	d.settle()
	if last := lines(d.screen())[len(lines(d.screen()))-1]; !strings.Contains(last, "pin: ") || !strings.Contains(last, "read-only") {
		t.Errorf("the server's refusal is not the status line: %q", last)
	}
	if f.get("zoo").Pinned {
		t.Error("a read-only server pinned the chat")
	}
}

func TestFiltersByPromptAndTheArchivedToggle(t *testing.T) {
	f := newFixture(t)
	zoo(f)
	if _, err := f.owner.ArchiveChat(f.ctx, annals.ChatSelector{ID: "zoo"}, true); err != nil {
		t.Fatal(err)
	}
	d := newDriver(t, f.opts(f.owner), 120, 30)
	if s := d.screen(); strings.Contains(s, "Count penguins") || !strings.Contains(s, "2 recent chats") {
		t.Fatalf("an archived chat is listed by default:\n%s", s)
	}
	d.keys("tab", "a")
	d.settle()
	if s := d.screen(); !strings.Contains(s, "[archived] Count penguins") || !strings.Contains(s, "filter: archived") {
		t.Errorf("a did not list archived chats:\n%s", s)
	}
	d.keys("a", "f")
	d.typeText("source:codex repo:acme")
	d.keys("enter")
	d.settle()
	s := d.screen()
	if !strings.Contains(s, "Refactor helpers") || strings.Contains(s, "Deploy the shop") || !strings.Contains(s, "filter: source:codex repo:acme") {
		t.Errorf("the filter source:codex repo:acme:\n%s", s)
	}
	d.keys("f")
	d.send(keyMsg("ctrl+u"))
	d.typeText("status:bogus")
	d.keys("enter")
	if last := lines(d.screen())[len(lines(d.screen()))-1]; !strings.Contains(last, "filter: status:bogus") {
		t.Errorf("a bad filter does not keep the prompt open: %q", last)
	}
	d.keys("esc")
	if s := d.screen(); !strings.Contains(s, "Refactor helpers") || strings.Contains(s, "Deploy the shop") {
		t.Errorf("a refused filter changed the results:\n%s", s)
	}
	d.keys("f")
	d.send(keyMsg("ctrl+u"))
	d.typeText("colour:red")
	d.keys("enter")
	if !strings.Contains(d.m.Status(), `unknown filter "colour"`) {
		t.Errorf("an unknown filter name: status %q", d.m.Status())
	}
	d.keys("esc", "F")
	d.settle()
	if s := d.screen(); !strings.Contains(s, "Deploy the shop") || !strings.Contains(s, "Refactor helpers") {
		t.Errorf("F did not clear the filters:\n%s", s)
	}
}

func TestWebOpensTheChatOrSaysWhyNot(t *testing.T) {
	f := newFixture(t)
	zoo(f)
	var opened []string
	o := f.opts(f.owner)
	o.WebURL = func(_ context.Context, id string) (string, error) {
		if id == "lib" {
			return "", annals.Errorf(annals.EUNAVAILABLE, "no annals server answers at http://127.0.0.1:1")
		}
		return "http://127.0.0.1:7457/chats/" + id, nil
	}
	o.OpenURL = func(u string) error {
		opened = append(opened, u)
		if strings.HasSuffix(u, "zoo") {
			return errors.New("no browser")
		}
		return nil
	}
	d := newDriver(t, o, 120, 30)
	d.keys("tab", "w") // shop, the newest
	d.settle()
	if !strings.Contains(d.m.Status(), "opened http://127.0.0.1:7457/chats/shop") {
		t.Errorf("w: status %q, opened %q", d.m.Status(), opened)
	}
	d.keys("j", "w") // lib: no server
	d.settle()
	if !strings.Contains(d.m.Status(), "web: no annals server answers") {
		t.Errorf("w without a server: status %q", d.m.Status())
	}
	d.keys("j", "w") // zoo: no browser, so the address is copied
	d.settle()
	if !strings.Contains(d.m.Status(), "copied http://127.0.0.1:7457/chats/zoo") || len(d.out) != 1 {
		t.Errorf("w without a browser: status %q, effects %#v", d.m.Status(), d.out)
	}
}
