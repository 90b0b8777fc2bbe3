// Package model holds the policy-value network of dama: the board encoding
// (encode.go), the network's config and tensors (config.go, network.go),
// the network spec, the one description of the architecture from which
// everything else is built, and the batch-norm folding (spec.go), the
// Gorgonia training graph and trainer (graph.go, train.go), the backend
// seam (backend.go) with the fp32 inference backend planned from the spec
// (infer.go, arithmetic in package dama/model/kernel), the batched, cached
// Evaluator over any backend that implements mcts.Evaluator (evaluator.go)
// and checkpoint files (checkpoint.go).
//
// The network is a residual tower over an 8x4 image of the 32 playable
// squares, seen from the side to move: an input 3x3 convolution, Blocks
// residual blocks of two 3x3 convolutions (each with batch norm and ReLU,
// the block's input added before the second ReLU), a policy head (1x1
// convolution, batch norm, ReLU, dense layer to 1024 (from, to) logits) and
// a value head (1x1 convolution, batch norm, ReLU, dense layer, ReLU, dense
// layer to win/draw/loss logits of the side to move; the expected score is
// W + D/2). With Config.AuxReply a training-only reply head, shaped as the
// policy head, predicts the policy target of the next ply (the opponent's
// reply) as an auxiliary target (Sample.Reply, TrainOptions.AuxWeight); it
// is part of TrainSpec, not Spec, so inference and the exports never
// compute it.
//
// Training runs in Gorgonia with batch statistics in the batch norms and
// keeps their running statistics, which checkpoints store and inference
// uses (eval mode). In float32 graphs the convolutions, batch norms and
// ReLUs are the package's own Gorgonia ops (convop.go on package kernel,
// bnop.go, affineop.go), on NHWC activations throughout (the heads
// flatten channel-major, flattenop.go, the order of their stored dense
// weights); float64 graphs, used by the finite-difference gradient check,
// use Gorgonia's Conv2d, BatchNorm and Rectify in NCHW.
//
// Backends (EvaluatorOptions.Backend): "fp32", the float32 kernels,
// available everywhere; "bf16" (infer_bf16.go), bfloat16 weights and
// activations with float32 accumulation, where the CPU has AVX512_BF16,
// about 1.9x fp32 per core on the workstation net (BenchmarkBackend);
// "int8" (infer_int8.go), convolutions with int8 weights (per output
// channel) and activations (scales calibrated at load on the network's own
// games) summed in int32, where the CPU has AVX512_VNNI (or, on arm64,
// FEAT_DotProd: SDOT), about 3x fp32 at batch 32. "auto" chooses bf16 where the CPU has it (it meets issue 12's
// accuracy criteria, measured with Compare) and fp32 elsewhere; on arm64
// bf16 runs BFDOT where the CPU has FEAT_BF16 but is not chosen by "auto"
// (not yet measured on an arm machine); it never chooses int8 (it meets the
// positions criteria with less margin, and its arena match against fp32 is
// not complete: README). Inference is plain Go: the forward pass agrees
// with the Gorgonia graph in eval mode to 1e-4 (see infer_test.go).
//
// Measured on one core of the development machine (AMD EPYC with AVX-512,
// GOMAXPROCS=1 go test ./model/ -run XXX -bench Infer -benchtime 300ms),
// positions per second at batch 1 / 8 / 32 / 128:
//
//	tiny         2x16   31k / 76k / 78k / 78k    (about 73 GFLOP/s)
//	small        4x32   19k / 34k / 36k / 35k    (about 195 GFLOP/s)
//	workstation  6x64   5.6k / 7.6k / 7.5k / 7.4k (about 225 GFLOP/s)
//	(8x64              4.5k / 5.2k / 5.5k / 5.3k)
//
// Gorgonia training at batch 256 on two shared cores (go test ./model/ -run
// XXX -bench Train -benchtime 3x), with those ops and Gorgonia's float32
// matrix products routed to package kernel (blas.go): tiny 7.5k, small 3.2k,
// workstation 1.0k samples/s (3.5k, 1.1k and 290 with Gorgonia's ops);
// keeping those ops' activations NHWC then gave 1.20x, 1.23x and 1.27x the
// samples per CPU-second (median of three interleaved runs on a loaded
// machine, the benchmark's samples/cpu-s).
//
// Policy index sharing (two captures with the same start and end) is rare:
// 1 position in 20,000 of random games (TestSharingRate).
package model
