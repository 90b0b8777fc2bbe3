//go:build !purego

package kernel

import "golang.org/x/sys/unix"

// Linux reports the CPU's features in the auxiliary vector; x/sys/cpu has
// no field for FEAT_BF16, so its bit is read here.
const (
	atHWCAP2   = 26      // AT_HWCAP2
	hwcap2BF16 = 1 << 14 // HWCAP2_BF16: BFDOT, BFMMLA, BFCVT and friends
)

// cpuHasBF16 reports whether the kernel says the CPU has FEAT_BF16.
func cpuHasBF16() bool {
	auxv, err := unix.Auxv()
	if err != nil {
		return false
	}
	for _, kv := range auxv {
		if kv[0] == atHWCAP2 {
			return kv[1]&hwcap2BF16 != 0
		}
	}
	return false
}
