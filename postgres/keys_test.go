package postgres_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/annals-dev/annals"
)

func TestKeysAreStoredByHashAndRevocable(t *testing.T) {
	db := MustOpenDB(t)
	ctx := context.Background()
	secret, err := annals.NewKeySecret()
	if err != nil {
		t.Fatal(err)
	}
	hash := annals.HashKeySecret(secret)
	p := annals.Principal{TenantID: "A", UserID: "u", Role: annals.RoleMember, Scopes: []annals.Scope{annals.ScopeUser, annals.ScopeTenant}}
	k, err := db.CreateKey(ctx, &annals.APIKey{ID: "key_1", Name: "ci", Principal: p, Hash: hash})
	if err != nil {
		t.Fatal(err)
	}
	if k.CreatedAt.IsZero() || k.Revoked() || len(k.Principal.Scopes) != 2 {
		t.Errorf("created %+v", k)
	}
	got, err := db.FindKeyByHash(ctx, hash)
	if err != nil || got.ID != "key_1" || got.Principal.UserID != "u" || got.Principal.Scopes[1] != annals.ScopeTenant || !bytes.Equal(got.Hash, hash) {
		t.Fatalf("find: %+v, %v", got, err)
	}
	if _, err := db.FindKeyByHash(ctx, annals.HashKeySecret(secret+"x")); annals.ErrorCode(err) != annals.ENOTFOUND {
		t.Errorf("unknown hash: %v", err)
	}
	if _, err := db.CreateKey(ctx, &annals.APIKey{ID: "key_2", Principal: p, Hash: hash}); annals.ErrorCode(err) != annals.ECONFLICT {
		t.Errorf("same hash twice: %v", err)
	}
	if _, err := db.CreateKey(ctx, &annals.APIKey{ID: "key_3", Principal: annals.Principal{TenantID: "A", Role: annals.RoleMember, Scopes: []annals.Scope{annals.ScopeGlobal}}, Hash: annals.HashKeySecret("x")}); annals.ErrorCode(err) != annals.EINVALID {
		t.Errorf("global on a member key: %v", err)
	}
	if _, err := db.CreateKey(ctx, &annals.APIKey{ID: "key_4", Principal: p, Hash: []byte("short")}); annals.ErrorCode(err) != annals.EINVALID {
		t.Errorf("a hash that is not SHA-256: %v", err)
	}
	r1, err := db.RevokeKey(ctx, "key_1")
	if err != nil || !r1.Revoked() {
		t.Fatalf("revoke: %+v, %v", r1, err)
	}
	time.Sleep(2 * time.Millisecond)
	r2, _ := db.RevokeKey(ctx, "key_1")
	if !r2.RevokedAt.Equal(*r1.RevokedAt) {
		t.Errorf("revoking again moved the time: %v then %v", r1.RevokedAt, r2.RevokedAt)
	}
	if got, _ := db.FindKeyByHash(ctx, hash); !got.Revoked() {
		t.Error("a revoked key is found unrevoked")
	}
	if _, err := db.RevokeKey(ctx, "key_nope"); annals.ErrorCode(err) != annals.ENOTFOUND {
		t.Errorf("revoke unknown: %v", err)
	}
	keys, err := db.ListKeys(ctx)
	if err != nil || len(keys) != 1 {
		t.Errorf("list: %d keys, %v", len(keys), err)
	}
	chats, entries, err := db.Counts(ctx)
	if err != nil || chats != 0 || entries != 0 {
		t.Errorf("counts: %d %d %v", chats, entries, err)
	}
}

func TestWellFormedKeySecret(t *testing.T) {
	s, _ := annals.NewKeySecret()
	for in, want := range map[string]bool{s: true, s[:len(s)-1]: false, "annals_" + string(bytes.Repeat([]byte("!"), 43)): false, "": false, "Bearer " + s: false} {
		if got := annals.WellFormedKeySecret(in); got != want {
			t.Errorf("WellFormedKeySecret(%q) = %v, want %v", in, got, want)
		}
	}
}
