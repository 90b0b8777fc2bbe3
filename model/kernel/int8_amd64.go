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

// kernel6x16I8AVX2 needs AVX2: VPMADDWD on 16-bit operands (nothing can
// saturate, see mulAVX2 in gen_amd64.go), so rows point to uint16 values
// of A and b to I8Matrix.data16 (ldb pairs per row of pairs), skip counts
// bytes of those; corr is unused.
//
//go:noescape
func kernel6x16I8AVX2(seg, nseg, skip int, rows **uint8, b *int8, ldb int, c *float32, ldc int, scale *float32, corr *int32, flags int)

// kernel4x16I8AVX2 needs AVX2: VPMADDUBSW on the bytes of A offset by
// -128 (so that no pair saturates, see mulAVX2Bytes in gen_amd64.go), the
// sums starting from corr. B's bytes must be in [-127, 127], as PackI8
// makes them.
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

// quantU16AVX2 is quantU8AVX2 into 16-bit values.
//
//go:noescape
func quantU16AVX2(dst *uint16, src *float32, n int, inv float32)

// i8GoReason says why an amd64 CPU runs the portable int8 kernel.
const i8GoReason = "the CPU lacks AVX2"

// The int8 levels of amd64 (idGo is the portable one).
const (
	idAVX512VNNI = iota + 1
	idAVXVNNI
	idI8AVX2
	idI8AVX2Bytes
)

// archI8Impls returns the int8 levels this CPU runs, best first.
func archI8Impls() []*i8Impl {
	var l []*i8Impl
	if cpu.X86.HasAVX512F && cpu.X86.HasAVX512VNNI {
		l = append(l, &i8Impl{name: "avx512vnni", reason: "the CPU has AVX512_VNNI", id: idAVX512VNNI, mr: 8, nr: 32})
	}
	if !cpu.X86.HasAVX2 {
		return l
	}
	if cpu.X86.HasAVXVNNI {
		l = append(l, &i8Impl{name: "avxvnni", reason: "the CPU has AVX-VNNI, not AVX512_VNNI", id: idAVXVNNI, mr: 6, nr: 16})
	}
	return append(l, &i8Impl{name: "avx2", reason: "the CPU has AVX2, neither AVX512_VNNI nor AVX-VNNI", id: idI8AVX2, mr: 6, nr: 16, wide: true,
		wino: true, dense: &i8Impl{name: "avx2-bytes", reason: "the dense layers of the avx2 level", id: idI8AVX2Bytes, mr: 4, nr: 16}})
}

// callKernelI8 runs level id's micro-kernel on one tile (a direct call to
// the assembly, which does not let rows and c escape).
func callKernelI8(id, seg, nseg, skip int, rows **uint8, b *int8, ldb int, c *float32, ldc int, scale *float32, corr *int32, flags int) {
	switch id {
	case idAVX512VNNI:
		kernel8x32I8(seg, nseg, skip, rows, b, ldb, c, ldc, scale, flags)
	case idAVXVNNI:
		kernel6x16I8AVXVNNI(seg, nseg, skip, rows, b, ldb, c, ldc, scale, corr, flags)
	case idI8AVX2:
		kernel6x16I8AVX2(seg, nseg, skip, rows, b, ldb, c, ldc, scale, corr, flags)
	case idI8AVX2Bytes:
		kernel4x16I8AVX2(seg, nseg, skip, rows, b, ldb, c, ldc, scale, corr, flags)
	default:
		kernelI8Go(seg, nseg, skip, rows, b, ldb, c, ldc, scale, flags)
	}
}

// quantU8Native quantizes the longest multiple of 16 of src's values into
// dst at level id and returns how many it did.
func quantU8Native(id int, dst []uint8, src []float32, inv float32) int {
	n := len(src) &^ 15
	if n == 0 {
		return 0
	}
	switch id {
	case idAVX512VNNI:
		quantU8AVX512(&dst[0], &src[0], n, inv)
	case idAVXVNNI, idI8AVX2, idI8AVX2Bytes:
		quantU8AVX2(&dst[0], &src[0], n, inv)
	default:
		return 0
	}
	return n
}

// quantU16Native is quantU8Native into 16-bit values.
func quantU16Native(id int, dst []uint16, src []float32, inv float32) int {
	n := len(src) &^ 15
	if n == 0 || id != idI8AVX2 {
		return 0
	}
	quantU16AVX2(&dst[0], &src[0], n, inv)
	return n
}
