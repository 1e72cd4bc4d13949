//go:build !race

package query_test

// raceEnabled is true under the race detector, where SQLite runs much slower; heavy tests sample.
const raceEnabled = false
