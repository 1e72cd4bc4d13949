package sqlite_test

import (
	"testing"

	"github.com/annals-dev/annals/storetest"
)

func TestDigestState(t *testing.T) {
	storetest.RunDigest(t, func(tb testing.TB) storetest.DigestStore { return MustOpenDB(tb) })
}
