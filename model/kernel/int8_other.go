//go:build !(amd64 || arm64) || purego

package kernel

// i8GoReason says why the portable int8 kernel runs here.
const i8GoReason = "no int8 assembly for this architecture (or the purego build tag)"

// archI8Impls returns no levels: no int8 micro-kernel in assembly here.
func archI8Impls() []*i8Impl { return nil }
