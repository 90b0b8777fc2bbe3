//go:build arm64 && !purego

package kernel

//go:generate go run gen_arm64.go

// kernel8x8NEON (kernel_arm64.s) computes a full 8 x 8 tile C =
// A[0:8][0:k] * B[0:k][0:8] (+ C with flagAcc, then max(0, x) with
// flagRelu), where row r of A starts at rows[r]; strides are in elements
// and k >= 1. It needs only the base ARMv8 SIMD (NEON), which every arm64
// CPU has.
//
//go:noescape
func kernel8x8NEON(k int, rows **float32, b *float32, ldb int, c *float32, ldc int, flags int)

// idNEON identifies the NEON micro-kernel. The identifiers need only be
// distinct within one architecture; this one is also distinct from the
// amd64 ones in kernel.go.
const idNEON = idAVX2 + 1

// archImpls returns the NEON implementation: Advanced SIMD is part of the
// arm64 base architecture. kc = 256 keeps a block of B (8 KB) and the
// eight rows of A it meets (8 KB) well inside a 64 KB level-1 cache.
func archImpls() []*impl {
	return []*impl{{name: "neon", id: idNEON, mr: 8, nr: 8, kc: 256}}
}

func callKernel(id, k int, rows **float32, b *float32, ldb int, c *float32, ldc int, flags int) {
	if id == idNEON {
		kernel8x8NEON(k, rows, b, ldb, c, ldc, flags)
		return
	}
	kernelGo(k, rows, b, ldb, c, ldc, flags)
}

// kernel8x32BF16NEON is the bf16 micro-kernel of bf16.go (k counts pairs
// of bfloat16 along k, rows point to pairs of A, b to the packed pairs of
// B, ldb pairs per row of pairs; C is float32), as four 8 x 8 strips of
// BFDOT by element. It needs FEAT_BF16 (Graviton 3 and 4, Apple M2 and
// later, Neoverse N2/V1/V2); BFDOT rounds its sums to odd and flushes
// subnormals, which moves results by about one float32 ulp per step from
// the portable kernel's, far inside bfloat16's own error.
//
//go:noescape
func kernel8x32BF16NEON(k int, rows **uint16, b *uint16, ldb int, c *float32, ldc int, flags int)

// bf16Native reports whether the CPU runs the BFDOT micro-kernel.
var bf16Native = cpuHasBF16()

func callKernelBF16Native(k int, rows **uint16, b *uint16, ldb int, c *float32, ldc int, flags int) {
	kernel8x32BF16NEON(k, rows, b, ldb, c, ldc, flags)
}

// cvtBF16Native rounds nothing: the conversion to bfloat16 stays in Go on
// arm64 (it is a small part of a product's time).
func cvtBF16Native(dst []uint16, src []float32) int { return 0 }

// winoF32In and winoF32Out are never called: no implementation here runs the
// Winograd convolution (winoVW is 0).
func winoF32In(id int, v, src []float32, at, c, ldp, edges int) {
	winoF32InGo(v, src, at, c, ldp, edges)
}

func winoF32Out(id int, dst, m []float32, c, ldd int, bias, res []float32, flags int) {
	winoF32OutGo(dst, m, c, ldd, bias, res, flags)
}
