//go:build amd64 && !purego

package kernel

import "golang.org/x/sys/cpu"

//go:generate go run gen_amd64.go gen_wino_amd64.go gen_winof32_amd64.go

// The assembly micro-kernels (kernel_amd64.s) compute a full mr x nr tile
// C = A[0:mr][0:k] * B[0:k][0:nr] (+ C with flagAcc, then max(0, x) with
// flagRelu), where row r of A starts at rows[r]; strides are in elements
// and k >= 1.

//go:noescape
func kernel8x32AVX512(k int, rows **float32, b *float32, ldb int, c *float32, ldc int, flags int)

//go:noescape
func kernel6x16AVX2(k int, rows **float32, b *float32, ldb int, c *float32, ldc int, flags int)

// fmaPeakAVX2 runs n passes of 12 independent 8-lane FMAs (192 flops
// each) and nothing else: the peak of the AVX2 kernel (BenchmarkFMAPeak).
// It needs AVX2 and FMA; n >= 1.
//
//go:noescape
func fmaPeakAVX2(n int)

// kernel8x32BF16 is the bf16 micro-kernel: k counts pairs of bfloat16
// along k, rows point to pairs of A, b to the packed pairs of B (ldb pairs
// per row of pairs); C is float32 as above. It needs AVX512_BF16.
//
//go:noescape
func kernel8x32BF16(k int, rows **uint16, b *uint16, ldb int, c *float32, ldc int, flags int)

// bf16Native reports whether the CPU runs the bf16 micro-kernel.
var bf16Native = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BF16

// cvtBF16AVX512 rounds n float32 (n a positive multiple of 16) to
// bfloat16, nearest even. It needs AVX512_BF16.
//
//go:noescape
func cvtBF16AVX512(dst *uint16, src *float32, n int)

func callKernelBF16Native(k int, rows **uint16, b *uint16, ldb int, c *float32, ldc int, flags int) {
	kernel8x32BF16(k, rows, b, ldb, c, ldc, flags)
}

// cvtBF16Native rounds the longest multiple of 16 of src's values into dst
// and returns how many it did.
func cvtBF16Native(dst []uint16, src []float32) int {
	n := len(src) &^ 15
	if n > 0 {
		cvtBF16AVX512(&dst[0], &src[0], n)
	}
	return n
}

// archImpls returns the assembly implementations this CPU supports,
// fastest first. winoMinTiles is where the Winograd convolution overtakes
// the direct product on the workstation net (BenchmarkBackend-like
// measurements of the whole net, one core of an AVX-512 Xeon, masked for
// AVX2): with AVX-512 one position ran 35% slower, two as fast, three 1.3
// times as fast; with AVX2 one position 13% slower, two 1.25 times as
// fast: the transformed weights, 4 times larger, cost more to read than
// the products of a single image save.
func archImpls() []*impl {
	var l []*impl
	if cpu.X86.HasAVX512F {
		l = append(l, &impl{name: "avx512", id: idAVX512, mr: 8, nr: 32, kc: 384, winoVW: 16, winoMinTiles: 6})
	}
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		l = append(l, &impl{name: "avx2", id: idAVX2, mr: 6, nr: 16, kc: 384, winoVW: 8, winoMinTiles: 4})
	}
	return l
}

func callKernel(id, k int, rows **float32, b *float32, ldb int, c *float32, ldc int, flags int) {
	switch id {
	case idAVX512:
		kernel8x32AVX512(k, rows, b, ldb, c, ldc, flags)
	case idAVX2:
		kernel6x16AVX2(k, rows, b, ldb, c, ldc, flags)
	default:
		kernelGo(k, rows, b, ldb, c, ldc, flags)
	}
}

// The transforms of the float32 Winograd convolution (conv.go), as
// winoF32InGo and winoF32OutGo compute them, on c channels a multiple of
// 16 (AVX512) or 8 (AVX2, which needs FMA too): the input transform reads
// the patch whose pixel (1, 1) is at d, its rows and columns of padding
// named by edges (winoTop, winoBottom, winoLeft, winoRight); the flags of
// the output transform are winoBias, winoRes and flagRelu.
//
//go:noescape
func winoF32InAVX512(v, d *float32, c, ldp, edges int)

//go:noescape
func winoF32OutAVX512(dst, m *float32, c, ldd int, bias, res *float32, flags int)

//go:noescape
func winoF32InAVX2(v, d *float32, c, ldp, edges int)

//go:noescape
func winoF32OutAVX2(dst, m *float32, c, ldd int, bias, res *float32, flags int)

func winoF32In(id int, v, src []float32, at, c, ldp, edges int) {
	switch id {
	case idAVX512:
		winoF32InAVX512(&v[0], &src[at], c, ldp, edges)
	case idAVX2:
		winoF32InAVX2(&v[0], &src[at], c, ldp, edges)
	default:
		winoF32InGo(v, src, at, c, ldp, edges)
	}
}

func winoF32Out(id int, dst, m []float32, c, ldd int, bias, res []float32, flags int) {
	if id != idAVX512 && id != idAVX2 {
		winoF32OutGo(dst, m, c, ldd, bias, res, flags)
		return
	}
	var bp, rp *float32
	if bias != nil {
		bp, flags = &bias[0], flags|winoBias
	}
	if res != nil {
		rp, flags = &res[0], flags|winoRes
	}
	if id == idAVX512 {
		winoF32OutAVX512(&dst[0], &m[0], c, ldd, bp, rp, flags)
	} else {
		winoF32OutAVX2(&dst[0], &m[0], c, ldd, bp, rp, flags)
	}
}
