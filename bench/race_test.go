//go:build race

package bench

// benchRace is true under the race detector, where SQLite runs about 35 times slower: the bench
// smoke test then runs a smaller corpus, still through every scenario (the concurrency scenario
// is where a race would hide).
const benchRace = true
