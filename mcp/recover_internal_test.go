package mcp

import (
	"context"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/annals-dev/annals"
)

func TestAPanickingHandlerIsOneFailedRequest(t *testing.T) {
	s := New(Config{})
	h := s.recovered(func(context.Context, string, sdk.Request) (sdk.Result, error) {
		var m map[string]int
		//lint:ignore SA5000 the handler must panic at run time, as a real bug would: a nil map write does
		m["boom"]++
		return nil, nil
	})
	res, err := h(context.Background(), "tools/call", nil)
	if res != nil || annals.ErrorCode(err) != annals.EINTERNAL || annals.ErrorMessage(err) != "internal error" {
		t.Fatalf("got %v, %v; want an internal error that shows no cause", res, err)
	}
}
