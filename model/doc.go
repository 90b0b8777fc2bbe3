// Package model is the policy-value network of dama as a description: the
// board encoding (encode.go: Encode, PolicyIndex, PolicyTarget), the
// network's config and presets and its tensors (config.go, network.go),
// the network spec, the one description of the architecture from which
// training and inference are built, and the batch-norm folding (spec.go),
// and checkpoint files (checkpoint.go). It links no machine-learning
// library: training is package dama/model/learn (Gorgonia), inference
// package dama/model/infer (backends, the batched cached Evaluator), and
// neither is needed to read, check or write a network.
//
// The network is a residual tower over an 8x4 image of the 32 playable
// squares, seen from the side to move: an input 3x3 convolution, Blocks
// residual blocks of two 3x3 convolutions (each with batch norm and ReLU,
// the block's input added before the second ReLU), a policy head (1x1
// convolution, batch norm, ReLU, dense layer to 1024 (from, to) logits) and
// a value head (1x1 convolution, batch norm, ReLU, dense layer, ReLU, dense
// layer to win/draw/loss logits of the side to move; the expected score is
// W + D/2).
//
// Training keeps the batch norms' running statistics, which checkpoints
// store and inference uses (eval mode); Network.Fold folds them into the
// convolutions for inference and the exports.
//
// Policy index sharing (two captures with the same start and end) is rare:
// 1 position in 20,000 of random games (TestSharingRate).
package model
