// Package export writes a trained dama network for use outside this
// project: as a standard ONNX model (opset 13, any runtime) and as a plain,
// documented JSON file of folded weights for engine authors who would
// rather implement the forward pass themselves.
//
// Both formats hold the network with every batch norm folded into the
// convolution before it (see Fold), so the graph is only Conv, Relu, Add,
// Flatten, Gemm and Softmax. The encoding they expect is the model
// package's:
//
//   - Input "planes", float32 [N, 8, 4, 9] (NHWC, exactly what model.Encode
//     writes): the 32 playable squares packed as 8 rows of 4, square s of
//     the side to move's frame (for Black the board is turned, s -> 33-s,
//     and colours swapped) at row (s-1)/4, column (s-1)%4; the 9 planes are
//     own men, own kings, opponent men, opponent kings, repeated once,
//     repeated twice, 40-move counter/80, even row, ones.
//   - Output "policy", float32 [N, 1024]: logits; index (from-1)*32 + (to-1)
//     with from and to in the mover's frame. Take the softmax over the
//     indices of the legal moves only.
//   - Output "wdl", float32 [N, 3]: probabilities of win, draw and loss for
//     the side to move (a softmax of the value head's logits).
//
// Both are built layer by layer from the network spec (model.Spec, folded
// by model.Network.Fold), as is the float64 reference forward pass
// (Net.Forward). The ONNX file is encoded with
// google.golang.org/protobuf/encoding/protowire and the field numbers of
// onnx.proto named in onnx.go. ortcheck/ holds the Node.js harness with which the tests
// check the file against ONNX Runtime.
package export
