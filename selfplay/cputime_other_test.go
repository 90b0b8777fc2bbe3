//go:build !unix

package selfplay

// processCPU is not measured here.
func processCPU() float64 { return 0 }
