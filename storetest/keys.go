package storetest

import (
	"bytes"
	"context"
	"testing"
	"time"

	annals "github.com/annals-dev/annals"
)

// keyTests prove the optional annals.KeyStore contract (the HTTP server's API keys) on a store
// that has it: keys are found by the hash of their secret only, unique by hash, validated, and
// revoked idempotently.
func keyTests() []test {
	return []test{{"StoredByHashAndRevocable", testKeysStoredByHashAndRevocable}}
}

func testKeysStoredByHashAndRevocable(t *testing.T, s Store) {
	db, ok := s.(annals.KeyStore)
	if !ok {
		t.Skip("the store keeps no API keys")
	}
	ctx := t.Context()
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
	if c, ok := s.(interface {
		Counts(context.Context) (int64, int64, error)
	}); ok {
		chats, entries, err := c.Counts(ctx)
		if err != nil || chats != 0 || entries != 0 {
			t.Errorf("counts: %d %d %v", chats, entries, err)
		}
	}
}
