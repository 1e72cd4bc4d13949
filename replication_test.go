package annals_test

import (
	"strings"
	"testing"

	"github.com/annals-dev/annals"
)

func TestDecodePayloadRefusesWhatItCannotApply(t *testing.T) {
	p := &annals.OpPayload{Delete: &annals.DeleteChange{ChatID: "c"}}
	b, err := annals.EncodePayload(p)
	if err != nil {
		t.Fatal(err)
	}
	got, err := annals.DecodePayload(b)
	if err != nil || got.Kind() != annals.OpDelete || got.ChatID() != "c" || got.V != annals.PayloadVersion {
		t.Fatalf("round trip = %+v, %v", got, err)
	}
	for _, tc := range []struct{ in, want string }{
		{`{"v":3,"delete":{"chat_id":"c"}}`, "version 3 is not supported"},
		{`{"v":1}`, "exactly one of"},
		{`{"v":1,"delete":{"chat_id":"c"},"chat":{"id":"c"}}`, "exactly one of"},
		{`{"v":1,`, "not valid JSON"},
	} {
		_, err := annals.DecodePayload([]byte(tc.in))
		if annals.ErrorCode(err) != annals.EINVALID || !strings.Contains(annals.ErrorMessage(err), tc.want) {
			t.Errorf("DecodePayload(%s) = %v, want invalid naming %q", tc.in, err, tc.want)
		}
	}
	if _, err := annals.EncodePayload(&annals.OpPayload{}); err == nil {
		t.Error("EncodePayload of an empty payload succeeded")
	}
}

func TestOpIDRoundTrip(t *testing.T) {
	id := annals.OpID("0123456789abcdef0123456789abcdef", 42)
	host, seq, err := annals.ParseOpID(id)
	if err != nil || host != "0123456789abcdef0123456789abcdef" || seq != 42 {
		t.Fatalf("ParseOpID(%q) = %q, %d, %v", id, host, seq, err)
	}
	if annals.OpID("", 7) != "" {
		t.Error("an op with no host has an id")
	}
	for _, bad := range []string{"", "nodot", ".5", "h.", "h.0", "h.-1", "h.x"} {
		if _, _, err := annals.ParseOpID(bad); annals.ErrorCode(err) != annals.EINVALID {
			t.Errorf("ParseOpID(%q) = %v, want invalid", bad, err)
		}
	}
}

func TestLaneDigestCoversEveryField(t *testing.T) {
	base := annals.LaneDigest("p", "c", 1, annals.OpAppend, []byte(`{"v":1}`))
	if len(base) != 64 {
		t.Fatalf("digest %q is not 64 hex digits", base)
	}
	for name, d := range map[string]string{
		"prev":    annals.LaneDigest("q", "c", 1, annals.OpAppend, []byte(`{"v":1}`)),
		"chat":    annals.LaneDigest("p", "d", 1, annals.OpAppend, []byte(`{"v":1}`)),
		"seq":     annals.LaneDigest("p", "c", 2, annals.OpAppend, []byte(`{"v":1}`)),
		"kind":    annals.LaneDigest("p", "c", 1, annals.OpRun, []byte(`{"v":1}`)),
		"payload": annals.LaneDigest("p", "c", 1, annals.OpAppend, []byte(`{"v":1} `)),
	} {
		if d == base {
			t.Errorf("changing the %s leaves the digest unchanged", name)
		}
	}
	if annals.LaneDigest("p", "c", 1, annals.OpAppend, []byte(`{"v":1}`)) != base {
		t.Error("the digest is not reproducible")
	}
}

func TestSameOrigin(t *testing.T) {
	origin := annals.Fingerprint{Machine: "m1", Hostname: "laptop", Location: "inode:7"}
	for _, tc := range []struct {
		here annals.Fingerprint
		ok   bool
		want string
	}{
		{annals.Fingerprint{Machine: "m1", Hostname: "renamed", Location: "inode:7"}, true, ""},
		{annals.Fingerprint{Machine: "m2", Hostname: "desk", Location: "inode:7"}, false, "created on another machine"},
		{annals.Fingerprint{Machine: "m1", Hostname: "laptop", Location: "inode:8"}, false, "another copy of the database"},
	} {
		ok, reason := annals.SameOrigin(origin, tc.here)
		if ok != tc.ok || !strings.Contains(reason, tc.want) {
			t.Errorf("SameOrigin(%+v) = %v, %q; want %v naming %q", tc.here, ok, reason, tc.ok, tc.want)
		}
	}
}
