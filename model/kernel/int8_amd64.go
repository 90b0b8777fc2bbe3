//go:build amd64 && !purego

package kernel

import "golang.org/x/sys/cpu"

// kernel8x32I8 is the int8 micro-kernel (see genI8 in gen_amd64.go): k
// counts quads, rows point to quads of unsigned bytes of A, b to the
// packed quads of signed bytes of B (ldb quads per row of quads); C is
// float32. It needs AVX512_VNNI.
//
//go:noescape
func kernel8x32I8(seg, nseg, skip int, rows **uint8, b *int8, ldb int, c *float32, ldc int, scale *float32, flags int)

// quantU8AVX512 quantizes n float32 (n a positive multiple of 16) to
// bytes as quantOne does. It needs AVX512F.
//
//go:noescape
func quantU8AVX512(dst *uint8, src *float32, n int, inv float32)

// i8Native reports whether the CPU runs the int8 micro-kernel.
var i8Native = cpu.X86.HasAVX512F && cpu.X86.HasAVX512VNNI

func callKernelI8Native(seg, nseg, skip int, rows **uint8, b *int8, ldb int, c *float32, ldc int, scale *float32, corr *int32, flags int) {
	kernel8x32I8(seg, nseg, skip, rows, b, ldb, c, ldc, scale, flags)
}

// quantU8Native quantizes the longest multiple of 16 of src's values into
// dst and returns how many it did.
func quantU8Native(dst []uint8, src []float32, inv float32) int {
	n := len(src) &^ 15
	if n > 0 {
		quantU8AVX512(&dst[0], &src[0], n, inv)
	}
	return n
}
