//go:build !linux

package rules

import "time"

func threadCPU() (time.Duration, bool) { return 0, false }
