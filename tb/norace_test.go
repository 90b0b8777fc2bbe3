//go:build !race

package tb

const raceEnabled = false
