//go:build amd64 && !purego

package kernel

import (
	"testing"

	"golang.org/x/sys/cpu"
)

// BenchmarkFMAPeak measures the float32 multiply-add ceiling of one core
// with 256-bit vectors (two FMA pipes of 8 lanes: 32 flops a cycle), the
// figure the AVX2 micro-kernel (BenchmarkConv3x3/avx2, BenchmarkSgemm/avx2)
// is compared with; GFLOP/s-cpu over 32 is the clock in GHz.
func BenchmarkFMAPeak(b *testing.B) {
	if !cpu.X86.HasAVX2 || !cpu.X86.HasFMA {
		b.Skip("needs AVX2 and FMA")
	}
	const n = 4096
	measure(b, 192*n, func() { fmaPeakAVX2(n) })
}
