// Package learn trains the network of package dama/model in Gorgonia: the
// training graph built from model.Spec (graph.go), the trainer with
// its options, samples and losses (train.go; losses.go also computes the
// losses through the fp32 backend of package dama/model/infer, for tests),
// and the package's own Gorgonia ops. It is the only package of dama that
// links Gorgonia; the engine and inference never import it.
//
// Training runs in Gorgonia with batch statistics in the batch norms and
// keeps their running statistics, which checkpoints store and inference
// uses (eval mode). In float32 graphs the convolutions, batch norms and
// ReLUs are the package's own Gorgonia ops (convop.go on package kernel,
// bnop.go, affineop.go), on NHWC activations throughout (the heads
// flatten channel-major, flattenop.go, the order of their stored dense
// weights); float64 graphs, used by the finite-difference gradient check,
// use Gorgonia's Conv2d, BatchNorm and Rectify in NCHW. The forward pass
// of package infer agrees with the graph in eval mode to 1e-4 (see
// forward_test.go).
//
// Gorgonia training at batch 256 on two shared cores (go test ./model/learn/
// -run XXX -bench Train -benchtime 3x), with those ops and Gorgonia's float32
// matrix products routed to package kernel (blas.go): tiny 7.5k, small 3.2k,
// workstation 1.0k samples/s (3.5k, 1.1k and 290 with Gorgonia's ops);
// keeping those ops' activations NHWC then gave 1.20x, 1.23x and 1.27x the
// samples per CPU-second (median of three interleaved runs on a loaded
// machine, the benchmark's samples/cpu-s).
package learn
