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
