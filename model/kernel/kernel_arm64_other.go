//go:build arm64 && !linux && !darwin && !purego

package kernel

// cpuHasBF16 is false where the OS's report of FEAT_BF16 is not read
// (Windows and the BSDs on arm64): the bf16 products run the portable
// micro-kernel there.
func cpuHasBF16() bool { return false }
