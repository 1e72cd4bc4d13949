package sqlite_test

import (
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/storetest"
)

func TestWebSessionsConformance(t *testing.T) {
	storetest.RunWebSessions(t, func(tb testing.TB) annals.WebSessionStore { return MustOpenDB(tb) })
}
