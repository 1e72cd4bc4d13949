//go:build !unix

package embed_test

import "time"

// processCPU is not measured here; the timing tests report 0.
func processCPU() time.Duration { return 0 }
