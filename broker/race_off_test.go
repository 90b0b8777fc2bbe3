//go:build !race

package broker

// raceDetector tells the tests that the race detector is on.
const raceDetector = false
