package antigravity_test

import (
	"os"
	"testing"

	"github.com/annals-dev/annals/importer/importertest"
)

func TestMain(m *testing.M) { os.Exit(importertest.Main(m)) }
