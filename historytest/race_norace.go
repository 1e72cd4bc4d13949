//go:build !race

package historytest

// raceIterations is how many times each forced check-then-write interleaving runs per backend.
const raceIterations = 1000
