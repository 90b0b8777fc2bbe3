//go:build amd64 && !purego

package kernel

import "golang.org/x/sys/cpu"

// The int8 micro-kernels (see genI8 in gen_amd64.go): k counts quads, rows
// point to quads of unsigned bytes of A, b to the packed quads of signed
// bytes of B (ldb quads per row of quads); C is float32.

// kernel8x32I8 needs AVX512_VNNI.
//
//go:noescape
func kernel8x32I8(seg, nseg, skip int, rows **uint8, b *int8, ldb int, c *float32, ldc int, scale *float32, flags int)

// kernel6x16I8AVXVNNI needs AVX-VNNI (VEX-encoded VPDPBUSD on YMM) and
// AVX2; corr is unused.
//
//go:noescape
func kernel6x16I8AVXVNNI(seg, nseg, skip int, rows **uint8, b *int8, ldb int, c *float32, ldc int, scale *float32, corr *int32, flags int)

// kernel4x16I8AVX2 needs AVX2: VPMADDUBSW on the bytes of A offset by
// -128 (so that no pair saturates, see mulAVX2 in gen_amd64.go), the sums
// starting from corr. B's bytes must be in [-127, 127], as PackI8 makes
// them.
//
//go:noescape
func kernel4x16I8AVX2(seg, nseg, skip int, rows **uint8, b *int8, ldb int, c *float32, ldc int, scale *float32, corr *int32, flags int)

// quantU8AVX512 quantizes n float32 (n a positive multiple of 16) to
// bytes as quantOne does. It needs AVX512F.
//
//go:noescape
func quantU8AVX512(dst *uint8, src *float32, n int, inv float32)

// quantU8AVX2 is quantU8AVX512 for AVX2.
//
//go:noescape
func quantU8AVX2(dst *uint8, src *float32, n int, inv float32)

// i8GoReason says why an amd64 CPU runs the portable int8 kernel.
const i8GoReason = "the CPU lacks AVX2"

// archI8Impls returns the int8 levels this CPU runs, best first.
func archI8Impls() []*i8Impl {
	var l []*i8Impl
	if cpu.X86.HasAVX512F && cpu.X86.HasAVX512VNNI {
		l = append(l, &i8Impl{name: "avx512vnni", reason: "the CPU has AVX512_VNNI", mr: 8, nr: 32,
			kernel: func(seg, nseg, skip int, rows **uint8, b *int8, ldb int, c *float32, ldc int, scale *float32, _ *int32, flags int) {
				kernel8x32I8(seg, nseg, skip, rows, b, ldb, c, ldc, scale, flags)
			},
			quant: quantPrefix(quantU8AVX512)})
	}
	if !cpu.X86.HasAVX2 {
		return l
	}
	if cpu.X86.HasAVXVNNI {
		l = append(l, &i8Impl{name: "avxvnni", reason: "the CPU has AVX-VNNI, not AVX512_VNNI", mr: 6, nr: 16,
			kernel: kernel6x16I8AVXVNNI, quant: quantPrefix(quantU8AVX2)})
	}
	l = append(l, &i8Impl{name: "avx2", reason: "the CPU has AVX2, neither AVX512_VNNI nor AVX-VNNI", mr: 4, nr: 16,
		kernel: kernel4x16I8AVX2, quant: quantPrefix(quantU8AVX2)})
	return l
}

// quantPrefix makes an i8Impl's quant of f, which quantizes a multiple of
// 16 values.
func quantPrefix(f func(dst *uint8, src *float32, n int, inv float32)) func([]uint8, []float32, float32) int {
	return func(dst []uint8, src []float32, inv float32) int {
		n := len(src) &^ 15
		if n > 0 {
			f(&dst[0], &src[0], n, inv)
		}
		return n
	}
}
