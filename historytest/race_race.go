//go:build race

package historytest

// raceIterations is smaller under the race detector, which runs SQLite about 35x slower; the
// interleaving is forced, not hoped for, so every iteration proves the same thing, and the full
// count runs in the plain test run.
const raceIterations = 25
