//go:build !purego

package kernel

import "golang.org/x/sys/unix"

// cpuHasBF16 reports whether macOS says the CPU has FEAT_BF16 (Apple M2
// and later).
func cpuHasBF16() bool {
	v, err := unix.SysctlUint32("hw.optional.arm.FEAT_BF16")
	return err == nil && v == 1
}
