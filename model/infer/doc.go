// Package infer evaluates the network of package dama/model for the
// search, in plain Go and without Gorgonia: the backend seam (backend.go:
// Backend, Runner, and a registry of backends by name, RegisterBackend,
// ResolveBackend, NewBackend), the fp32 backend planned from the network
// spec (infer.go, arithmetic in package dama/model/kernel), the bf16 and
// int8 backends (infer_bf16.go, infer_int8.go), the batched, cached
// Evaluator over any backend that implements mcts.Evaluator
// (evaluator.go), and Compare, which measures how closely two evaluators
// agree (compare.go).
//
// Backends (EvaluatorOptions.Backend): "fp32", the float32 kernels,
// available everywhere, its 3x3 convolutions run as Winograd convolutions
// (kernel.Conv3x3Packed) in workspaces from kernel.WinogradMinBatch
// positions on; "bf16" (infer_bf16.go), bfloat16 weights and
// activations with float32 accumulation, where the CPU has AVX512_BF16,
// about 1.9x fp32 per core on the workstation net (BenchmarkBackend)
// before fp32's Winograd convolutions, which made fp32 the faster from
// batch 8 on on the development machine's Xeon (docs/journal/performance.md);
// "int8" (infer_int8.go), convolutions with int8 weights (per output
// channel) and activations (scales calibrated at load on the network's own
// games) summed in int32, on every amd64 CPU with AVX2 (kernels for
// AVX512_VNNI, AVX-VNNI and plain AVX2, package kernel) and on arm64 with
// FEAT_DotProd (SDOT): about 3x fp32 at batch 32 with AVX512_VNNI, 1.5x
// with AVX2 alone (Zen 3). "auto" chooses bf16 where the CPU has it (it meets issue 12's
// accuracy criteria, measured with Compare) and fp32 elsewhere; on arm64
// bf16 runs BFDOT where the CPU has FEAT_BF16 but is not chosen by "auto"
// (not yet measured on an arm machine); it never chooses int8 (it meets the
// positions criteria with less margin, and its arena match against fp32 is
// not complete: docs/performance.md). Inference is plain Go: the forward pass agrees
// with the Gorgonia graph of package dama/model/learn in eval mode to 1e-4
// (see forward_test.go there).
//
// Measured on one core of the development machine (an AVX-512 Xeon
// under KVM, shared, so cells move by 10-20%; GOMAXPROCS=1 go test
// ./model/infer/ -run XXX -bench Infer -benchtime 300ms), positions per
// CPU-second at batch 1 / 8 / 32 / 128:
//
//	tiny         2x16   28k / 83k / 85k / 85k
//	small        4x32   13k / 39k / 43k / 45k
//	workstation  6x64   3.1k / 10.0k / 9.7k / 10.3k
//	(8x64              2.5k / 8.3k / 8.5k / 8.1k)
//
// (before the Winograd convolutions, in the same session: 19k / 45k / 46k
// / 46k, 12k / 21k / 23k / 21k, 2.5k / 4.5k / 4.4k / 4.3k and 2.1k / 3.5k /
// 3.5k / 3.5k).
package infer
