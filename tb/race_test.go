//go:build race

package tb

// raceEnabled is true under the race detector, where the tests that walk
// every position take a sample instead: the generation's goroutines are
// what the detector is for.
const raceEnabled = true
