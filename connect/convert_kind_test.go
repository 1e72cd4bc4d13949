package connect

import (
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/annals-dev/annals"
	v1 "github.com/annals-dev/annals/connect/annalsv1"
)

// TestRunKindCrossesTheWire: a run's kind (a recap annals made for the chat) goes through the
// protobuf message and back, on the wire, as the HTTP API's JSON carries it.
func TestRunKindCrossesTheWire(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, kind := range annals.RunKinds {
		in := &annals.Run{ID: "r", ChatID: "c", Status: annals.StatusCompleted, Model: "m", StartedAt: at, InputTokens: 3, Kind: kind}
		b, err := proto.Marshal(runMsg(in))
		if err != nil {
			t.Fatal(err)
		}
		var m v1.Run
		if err := proto.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		if out := runOf(&m); out.Kind != kind || out.ID != "r" || out.InputTokens != 3 {
			t.Errorf("kind %q came back as %+v", kind, out)
		}
	}
}

// TestGeneratedTitleMarkCrossesTheWire: a chat's title_generated goes through the protobuf
// message and back.
func TestGeneratedTitleMarkCrossesTheWire(t *testing.T) {
	for _, generated := range []bool{true, false} {
		b, err := proto.Marshal(chatMsg(&annals.Chat{ID: "c", TenantID: "t", Title: "A title", TitleGenerated: generated}))
		if err != nil {
			t.Fatal(err)
		}
		var m v1.Chat
		if err := proto.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		if out := chatOf(&m); out.TitleGenerated != generated || out.Title != "A title" {
			t.Errorf("title_generated %v came back as %+v", generated, out)
		}
	}
}
