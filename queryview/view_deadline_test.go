package queryview_test

import (
	"context"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/queryview"
)

// A query's strict check stops at the request's deadline before the store is asked anything.
func TestAQueryStopsAtTheDeadline(t *testing.T) {
	body := `{"kind":"sessions","annals":{"strict":true},"x":[` + strings.Repeat(`1,`, 5000) + `1]}`
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := queryview.New(nil).Query(ctx, strings.NewReader(body))
	if annals.ErrorCode(err) != annals.EUNAVAILABLE || !strings.Contains(annals.ErrorMessage(err), "deadline") {
		t.Errorf("a query already past its deadline: %v", err)
	}
}
