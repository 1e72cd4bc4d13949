package replicate

import (
	"context"
	"database/sql"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/httpapi"
	"github.com/annals-dev/annals/sqlite"
	"github.com/annals-dev/annals/storetest"
)

// fileRemote is a remote annals server over a SQLite file that a test can stop, restore from a
// copy of the file (a backup) and start again on a new port.
type fileRemote struct {
	t    *testing.T
	path string
	key  string
	db   *sqlite.DB
	srv  *httpapi.Server
	url  string
}

func newFileRemote(t *testing.T) *fileRemote {
	t.Helper()
	r := &fileRemote{t: t, path: filepath.Join(t.TempDir(), "remote.db")}
	r.start()
	r.key = newKey(t, r.db, annals.RoleOperator)
	t.Cleanup(r.stop)
	return r
}

func (r *fileRemote) start() {
	r.t.Helper()
	db, err := sqlite.Open(context.Background(), r.path, sqlite.Options{})
	if err != nil {
		r.t.Fatal(err)
	}
	svc := history.New(history.Config{Store: db, View: db})
	srv := httpapi.New(httpapi.Config{Addr: "127.0.0.1:0", Service: svc, View: svc, Replica: svc, Keys: db})
	if err := srv.Open(context.Background()); err != nil {
		r.t.Fatal(err)
	}
	r.db, r.srv, r.url = db, srv, srv.URL()
}

func (r *fileRemote) stop() {
	if r.srv != nil {
		r.srv.Close()
		r.db.Close()
		r.srv = nil
	}
}

// backup stops the remote, copies its database file to dst, and starts it again.
func (r *fileRemote) backup(dst string) {
	r.t.Helper()
	r.stop()
	copyFile(r.t, r.path, dst)
	r.start()
}

// restore stops the remote, puts the backup src in place of its database, and starts it again.
func (r *fileRemote) restore(src string) {
	r.t.Helper()
	r.stop()
	for _, suffix := range []string{"-wal", "-shm"} {
		if err := os.Remove(r.path + suffix); err != nil && !os.IsNotExist(err) {
			r.t.Fatal(err)
		}
	}
	copyFile(r.t, src, r.path)
	r.start()
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

func mustPush(t *testing.T, p *Pusher) *Report {
	t.Helper()
	rep, err := p.PushOnce(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func differences(t *testing.T, v *Verification) map[string]*Difference {
	t.Helper()
	m := map[string]*Difference{}
	for _, d := range v.Differences {
		m[d.ChatID] = d
	}
	return m
}

// The remote is restored from a backup older than what the host had pushed: chats it lost
// entries of, a chat created after the backup, a chat the host renamed since, a chat the host
// deleted since (its copy is back on the remote), and a lane whose new operations the remote
// now refuses as out of order (quarantined: the host no longer holds what came between).
// verify --no-repair names each lane's first difference; verify repairs them all, deleted chats
// stay deleted, the counts of both sides agree, and the lanes keep flowing afterwards.
func TestVerifyRepairsRemoteRestoredFromOlderBackup(t *testing.T) {
	ctx := context.Background()
	r := newFileRemote(t)
	host := newHost(t)
	writeChat(t, host, "a", 3)
	writeChat(t, host, "b", 2)
	writeChat(t, host, "gone", 2)
	mustPush(t, newPusher(host, r.url, r.key))
	backup := filepath.Join(t.TempDir(), "backup.db")
	r.backup(backup)

	writeChat(t, host, "late", 2)
	appendText(t, host, "a", "a-more", "written after the backup")
	title := "renamed after the backup"
	if _, err := host.UpdateChat(ctx, chatRef(t, host, "b"), annals.ChatUpdate{Title: &title}); err != nil {
		t.Fatal(err)
	}
	if err := host.DeleteChat(ctx, chatRef(t, host, "gone")); err != nil {
		t.Fatal(err)
	}
	p := newPusher(host, r.url, r.key)
	mustPush(t, p)
	mustVerifyZero(t, p)

	r.restore(backup)
	if _, err := r.db.FindChatByID(ctx, "gone"); err != nil {
		t.Fatalf("the restored remote should hold the deleted chat again: %v", err)
	}
	p = newPusher(host, r.url, r.key)
	appendText(t, host, "a", "a-after-restore", "written after the restore")
	rep := mustPush(t, p)
	if !contains(rep.Quarantined, "a") {
		t.Fatalf("lane a after the restore: %+v; want it quarantined (the remote lost what the host acknowledged)", rep)
	}

	v, err := p.Verify(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	diffs := differences(t, v)
	for id, remoteSeq := range map[string]int64{"a": 4, "b": 3, "gone": 3, "late": 0} {
		d := diffs[id]
		if d == nil || !d.Repairable || d.RemoteSeq != remoteSeq || d.FirstSeq != remoteSeq+1 {
			t.Errorf("lane %s: %+v; want a repairable difference, remote at %d, first difference at %d", id, d, remoteSeq, remoteSeq+1)
		}
	}
	if len(v.Repaired) != 0 {
		t.Errorf("verify --no-repair repaired %d lanes", len(v.Repaired))
	}
	if v.Host.Chats != 3 || v.Remote.Chats != 3 || v.Host.Entries != 5+2+2 || v.Remote.Entries != 3+2+2 {
		t.Errorf("sides: host %+v, remote %+v; want 3 chats each, 9 entries here, 7 there", v.Host, v.Remote)
	}

	v, err = p.Verify(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Repaired) != 4 || len(v.Differences) != 0 {
		t.Fatalf("verify: repaired %d lanes, %d differences left (%+v); want 4 and 0", len(v.Repaired), len(v.Differences), v.Differences)
	}
	if v.Host != v.Remote {
		t.Errorf("sides after the repair: host %+v, remote %+v", v.Host, v.Remote)
	}
	for _, id := range []string{"a", "b", "late"} {
		sameTranscript(t, host, r.db, id)
	}
	if c, err := r.db.FindChatByID(ctx, "b"); err != nil || c.Title != title {
		t.Errorf("the remote's chat b: %+v, %v; want the title %q", c, err, title)
	}
	if _, err := r.db.FindChatByID(ctx, "gone"); annals.ErrorCode(err) != annals.ENOTFOUND {
		t.Errorf("the deleted chat on the remote after verify: %v; want not found (the tombstone re-sent)", err)
	}
	if q, _ := host.Quarantined(ctx); len(q) != 0 {
		t.Errorf("quarantined lanes after the repair: %+v", q)
	}
	mustVerifyZero(t, p)

	appendText(t, host, "a", "a-after-repair", "the lane flows again")
	mustPush(t, p)
	sameTranscript(t, host, r.db, "a")
	mustVerifyZero(t, p)
}

// A chat's rows deleted by hand on the remote: the lane's head still matches, but the remote's
// copy does not; verify names it, and repairs it from the host's chat.
func TestVerifyRepairsRowsDeletedByHand(t *testing.T) {
	ctx := context.Background()
	r := newFileRemote(t)
	host := newHost(t)
	writeChat(t, host, "a", 4)
	writeChat(t, host, "b", 2)
	p := newPusher(host, r.url, r.key)
	mustPush(t, p)
	mustVerifyZero(t, p)

	raw, err := sql.Open("sqlite", r.path+"?_pragma=foreign_keys(1)&_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`DELETE FROM chats WHERE id = 'a'`); err != nil {
		t.Fatal(err)
	}
	raw.Close()

	v, err := p.Verify(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	d := differences(t, v)["a"]
	if len(v.Differences) != 1 || d == nil || !d.Repairable || d.Remote != nil || d.Host == nil || d.Host.Entries != 4 {
		t.Fatalf("verify after the rows were deleted: %+v (a: %+v); want one repairable difference on a", v.Differences, d)
	}
	v, err = p.Verify(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Repaired) != 1 || len(v.Differences) != 0 {
		t.Fatalf("verify: repaired %d, %d left: %+v", len(v.Repaired), len(v.Differences), v.Differences)
	}
	sameTranscript(t, host, r.db, "a")
	mustVerifyZero(t, p)
}

// Deleted chats do not come back: the remote is reset to a backup taken before the chat was
// even created; the host's verify re-sends the tombstone, and a later operation of that chat
// from another host is still refused.
func TestTombstoneResentAfterRemoteReset(t *testing.T) {
	ctx := context.Background()
	r := newFileRemote(t)
	host := newHost(t)
	writeChat(t, host, "keep", 1)
	p := newPusher(host, r.url, r.key)
	mustPush(t, p)
	backup := filepath.Join(t.TempDir(), "backup.db")
	r.backup(backup)

	writeChat(t, host, "doomed", 2)
	mustPush(t, newPusher(host, r.url, r.key))
	if err := host.DeleteChat(ctx, chatRef(t, host, "doomed")); err != nil {
		t.Fatal(err)
	}
	mustPush(t, newPusher(host, r.url, r.key))
	r.restore(backup)
	p = newPusher(host, r.url, r.key)
	v, err := p.Verify(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Repaired) != 1 || v.Repaired[0].ChatID != "doomed" || len(v.Differences) != 0 {
		t.Fatalf("verify: repaired %+v, left %+v; want the lane of the deleted chat repaired", v.Repaired, *v.Differences[0])
	}
	heads, err := r.db.ReplicaLanes(ctx, []string{"doomed"})
	if err != nil || len(heads) != 1 || !heads[0].Deleted {
		t.Fatalf("the remote's lanes of the deleted chat: %+v, %v; want one, a tombstone", heads, err)
	}
	if _, err := r.db.FindChatByID(ctx, "doomed"); annals.ErrorCode(err) != annals.ENOTFOUND {
		t.Errorf("the deleted chat on the remote: %v; want not found", err)
	}
	mustVerifyZero(t, p)

	other := newHost(t)
	writeChat(t, other, "doomed", 1)
	rep := mustPush(t, newPusher(other, r.url, r.key))
	if !contains(rep.Quarantined, "doomed") {
		t.Errorf("another host's later operation of the deleted chat: %+v; want it refused (quarantined)", rep)
	}
	if _, err := r.db.FindChatByID(ctx, "doomed"); annals.ErrorCode(err) != annals.ENOTFOUND {
		t.Errorf("the deleted chat came back on the remote: %v", err)
	}
}

func appendText(t *testing.T, host *sqlite.DB, chatID, entryID, text string) {
	t.Helper()
	if _, err := annals.AppendEntries(context.Background(), host, chatID, []*annals.Entry{storetest.TextEntry(entryID, annals.KindUser, text)}); err != nil {
		t.Fatal(err)
	}
}

func chatRef(t *testing.T, host *sqlite.DB, id string) annals.ChatRef {
	t.Helper()
	c, err := host.FindChatByID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return c.Ref()
}
