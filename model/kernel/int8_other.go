//go:build !(amd64 || arm64) || purego

package kernel

// i8GoReason says why the portable int8 kernel runs here.
const i8GoReason = "no int8 assembly for this architecture (or the purego build tag)"

// archI8Impls returns no levels: no int8 micro-kernel in assembly here.
func archI8Impls() []*i8Impl { return nil }

func callKernelI8(id, seg, nseg, skip int, rows **uint8, b *int8, ldb int, c *float32, ldc int, scale *float32, corr *int32, flags int) {
	kernelI8Go(seg, nseg, skip, rows, b, ldb, c, ldc, scale, flags)
}

func quantU8Native(id int, dst []uint8, src []float32, inv float32) int { return 0 }

// quantU16Native quantizes nothing: no level here reads 16-bit inputs.
func quantU16Native(id int, dst []uint16, src []float32, inv float32) int { return 0 }

// packWino does nothing: no level here has a Winograd convolution.
func packWino(m *I8Matrix) {}

// conv3x3I8Wino reports false: no level here has a Winograd convolution.
func conv3x3I8Wino(im *i8Impl, dst, src []float32, batch, h, w, cin, cout int, wt *I8Matrix, bias, residual []float32, relu bool, scratch []uint8) bool {
	return false
}
