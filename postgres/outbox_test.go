package postgres_test

import (
	"testing"

	"github.com/annals-dev/annals/storetest"
)

func TestOutboxConformance(t *testing.T) {
	storetest.RunOutbox(t, func(tb testing.TB) storetest.OutboxStore { return MustOpenDB(tb) })
}
