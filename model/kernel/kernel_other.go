//go:build (!amd64 && !arm64) || purego

package kernel

// archImpls returns no assembly implementations: only the pure-Go kernel
// is available.
func archImpls() []*impl { return nil }

func callKernel(id, k int, rows **float32, b *float32, ldb int, c *float32, ldc int, flags int) {
	kernelGo(k, rows, b, ldb, c, ldc, flags)
}

// bf16Native is false: no bf16 micro-kernel in assembly here.
var bf16Native = false

func callKernelBF16Native(k int, rows **uint16, b *uint16, ldb int, c *float32, ldc int, flags int) {
	kernelBF16Go(k, rows, b, ldb, c, ldc, flags)
}

func cvtBF16Native(dst []uint16, src []float32) int { return 0 }

// winoF32In and winoF32Out are never called: no implementation here runs the
// Winograd convolution (winoVW is 0).
func winoF32In(id int, v, src []float32, at, c, ldp, edges int) {
	winoF32InGo(v, src, at, c, ldp, edges)
}

func winoF32Out(id int, dst, m []float32, c, ldd int, bias, res []float32, flags int) {
	winoF32OutGo(dst, m, c, ldd, bias, res, flags)
}
