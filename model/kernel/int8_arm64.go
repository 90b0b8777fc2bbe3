//go:build arm64 && !purego

package kernel

import "golang.org/x/sys/cpu"

// kernel8x32I8NEON is the int8 micro-kernel of int8.go for arm64 (see
// genI8 in gen_arm64.go): SDOT by element over the bytes of A with their
// top bit flipped, the accumulators starting from corr (128 times the
// column sums of B), so its int32 sums and float32 epilogue equal the
// portable kernel's bit for bit. It needs FEAT_DotProd.
//
//go:noescape
func kernel8x32I8NEON(seg, nseg, skip int, rows **uint8, b *int8, ldb int, c *float32, ldc int, scale *float32, corr *int32, flags int)

// i8GoReason says why an arm64 CPU runs the portable int8 kernel.
const i8GoReason = "the CPU lacks FEAT_DotProd"

// idSDOT identifies the SDOT level (idGo is the portable one).
const idSDOT = 1

// archI8Impls returns the SDOT level where the CPU has FEAT_DotProd (Apple
// M1 and later, Graviton 2 and later, Cortex-A76 and later; x/sys/cpu
// reads it from the OS on Linux and macOS).
func archI8Impls() []*i8Impl {
	if !cpu.ARM64.HasASIMDDP {
		return nil
	}
	return []*i8Impl{{name: "sdot", reason: "the CPU has FEAT_DotProd", id: idSDOT, mr: 8, nr: 32}}
}

func callKernelI8(id, seg, nseg, skip int, rows **uint8, b *int8, ldb int, c *float32, ldc int, scale *float32, corr *int32, flags int) {
	if id == idSDOT {
		kernel8x32I8NEON(seg, nseg, skip, rows, b, ldb, c, ldc, scale, corr, flags)
		return
	}
	kernelI8Go(seg, nseg, skip, rows, b, ldb, c, ldc, scale, flags)
}

// quantU8Native quantizes nothing: the quantization of the activations
// stays in Go on arm64.
func quantU8Native(id int, dst []uint8, src []float32, inv float32) int { return 0 }

// quantU16Native quantizes nothing: no level here reads 16-bit inputs.
func quantU16Native(id int, dst []uint16, src []float32, inv float32) int { return 0 }

// packWino does nothing: no level here has a Winograd convolution.
func packWino(m *I8Matrix) {}

// conv3x3I8Wino reports false: no level here has a Winograd convolution.
func conv3x3I8Wino(im *i8Impl, dst, src []float32, batch, h, w, cin, cout int, wt *I8Matrix, bias, residual []float32, relu bool, scratch []uint8) bool {
	return false
}
