//go:build race

package clients

// raceEnabled: the client suites run in the plain test run only (their server is a separate
// binary, so the race detector would watch nothing but the test's own waiting).
const raceEnabled = true
