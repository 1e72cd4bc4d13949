package sqlite_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/sqlite"
	"github.com/annals-dev/annals/storetest"
)

const killChildEnv = "ANNALS_OUTBOX_KILL_CHILD"

// killWritten is how many chats the writer reports written whole before it is killed.
const killWritten = 5

// A writer killed with SIGKILL in the middle of its writes leaves every change with its
// operation or neither: after the kill, each chat's lane holds exactly the chat, its appended
// entries and its renames, and no lane names a chat that is not there.
func TestOutboxKillMidWrite(t *testing.T) {
	if path := os.Getenv(killChildEnv); path != "" {
		killChild(path)
		return
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "kill.db")
	db := openAt(t, path)
	if _, err := db.SetOutbox(ctx, true); err != nil {
		t.Fatal(err)
	}
	db.Close()

	cmd := exec.Command(os.Args[0], "-test.run=^TestOutboxKillMidWrite$", "-test.count=1")
	cmd.Env = append(os.Environ(), killChildEnv+"="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Let it write until it reports killWritten chats whole (a condition, not a clock: a loaded
	// machine only makes it take longer), then kill it where it stands, in the next chat's writes.
	lines := bufio.NewScanner(out)
	for written := 0; written < killWritten; written++ {
		if !lines.Scan() {
			_ = cmd.Wait()
			t.Fatalf("the writer ended after %d chats: %v", written, cmd.ProcessState)
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	db = openAt(t, path)
	chats, total, err := db.FindChats(ctx, annals.ChatFilter{Owner: annals.Owner{TenantID: "t1"}, Limit: annals.MaxListLimit, IncludeArchived: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the writer stored %d chats before the kill", total)
	if total < killWritten {
		t.Fatalf("the writer stored %d chats before the kill; the test needs more time to mean anything", total)
	}
	lanes, err := db.OutboxLanes(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(lanes) != total {
		t.Errorf("%d lanes for %d chats", len(lanes), total)
	}
	for _, c := range chats {
		ops, err := db.PendingOps(ctx, annals.OutboxRead{ChatID: c.ID})
		if err != nil {
			t.Fatal(err)
		}
		var entries int64
		renames := 0
		for _, op := range ops {
			p, err := annals.DecodePayload(op.Payload)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case p.Append != nil:
				entries += int64(len(p.Append.Entries))
			case p.Curate != nil:
				renames++
			}
		}
		wantRename := 0
		if c.Title != "" {
			wantRename = 1
		}
		if len(ops) == 0 || ops[0].Kind != annals.OpChat || entries != c.Totals.Entries || renames != wantRename {
			t.Errorf("chat %s: %d ops (%d entries, %d renames); the chat holds %d entries and title %q",
				c.ID, len(ops), entries, renames, c.Totals.Entries, c.Title)
		}
	}
}

// killChild writes chats until it is killed: each chat created, appended to in several
// batches and renamed, every write its own transaction; a line on stdout after each chat.
func killChild(path string) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	for i := 0; ; i++ {
		id := fmt.Sprintf("k%05d", i)
		if _, err := annals.CreateChat(ctx, db, storetest.NewChat(id, "t1")); err != nil {
			os.Exit(3)
		}
		for j := range 3 {
			if _, err := annals.AppendEntries(ctx, db, id, storetest.Entries(fmt.Sprintf("%s-%d", id, j), 20)); err != nil {
				os.Exit(4)
			}
		}
		title := "chat " + id
		ref := annals.ChatRef{ID: id, Owner: annals.ChatOwner{TenantID: "t1"}}
		c, err := db.FindChatByID(ctx, id)
		if err != nil {
			os.Exit(5)
		}
		ref.Incarnation = c.Incarnation
		if _, err := db.UpdateChat(ctx, ref, annals.ChatUpdate{Title: &title}); err != nil {
			os.Exit(6)
		}
		fmt.Println("written", id) // committed: the parent counts these
	}
}
