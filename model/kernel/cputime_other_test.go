//go:build !linux

package kernel

import "time"

// threadCPU is unavailable here: benchmarks report wall-clock rates only.
func threadCPU() (time.Duration, bool) { return 0, false }
