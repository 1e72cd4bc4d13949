//go:build !race

package queryview_test

// raceDetector is set under -race, where SQLite runs about 35x slower.
const raceDetector = false
