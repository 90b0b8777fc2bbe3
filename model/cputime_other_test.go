//go:build !unix

package model

import "time"

// cpuTime is not measured here; benchmarks skip the per-CPU-second metrics.
func cpuTime() time.Duration { return 0 }
