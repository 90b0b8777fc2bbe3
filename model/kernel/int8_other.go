//go:build !(amd64 || arm64) || purego

package kernel

// i8Native is false: no int8 micro-kernel in assembly here.
var i8Native = false

func callKernelI8Native(seg, nseg, skip int, rows **uint8, b *int8, ldb int, c *float32, ldc int, scale *float32, corr *int32, flags int) {
	kernelI8Go(seg, nseg, skip, rows, b, ldb, c, ldc, scale, flags)
}

func quantU8Native(dst []uint8, src []float32, inv float32) int { return 0 }
