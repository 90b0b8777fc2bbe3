package learn

import (
	"fmt"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"dama/model"
)

// graph is the Gorgonia expression of a network for a fixed batch size,
// with the training loss when built with loss. Float32 graphs keep their
// activations NHWC, the layout of the encoding and of package kernel, from
// the input planes to the heads (the package's ops); float64 graphs, on
// Gorgonia's own ops, are NCHW (the input planes transposed).
type graph struct {
	g     *G.ExprGraph
	dt    tensor.Dtype
	batch int

	x       *G.Node   // (B, 8, 4, NumPlanes), or (B, NumPlanes, 8, 4) in float64
	nodes   []*G.Node // one per network tensor; nil for running statistics
	bn      []statsOp
	bnStats [][2]int // indices of each op's mean and var tensors

	policy, value *G.Node // logits (B, 1024), (B, 3)

	// training only
	mask, ptarget, vtarget *G.Node   // (B, 1024), (B, 1024), (B, 3)
	logp                   *G.Node   // masked policy log-probabilities
	policyLoss, valueLoss  *G.Node   // scalars
	l2, cost               *G.Node   // scalars
	learn                  []*G.Node // trainable nodes in network order
	learnIdx               []int     // their tensor indices
}

func scalar(dt tensor.Dtype, v float64) *G.Node {
	if dt == tensor.Float64 {
		return G.NewConstant(v)
	}
	return G.NewConstant(float32(v))
}

func newDense(dt tensor.Dtype, shape []int, data []float32) *tensor.Dense {
	if dt == tensor.Float64 {
		d := make([]float64, len(data))
		for i, v := range data {
			d[i] = float64(v)
		}
		return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(d))
	}
	return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(append([]float32(nil), data...)))
}

// buildGraph builds the graph of net at the given batch size and dtype. With
// loss it adds the masked policy cross-entropy, the WDL cross-entropy and
// weightDecay times the sum of squared weights, and the gradients of the
// total with respect to every trainable tensor. Float32 graphs use the
// package's convolution, batch-norm and scale-shift-ReLU ops; float64 graphs
// Gorgonia's Conv2d, BatchNorm and Rectify.
func buildGraph(net *model.Network, batch int, dt tensor.Dtype, loss bool, bnMomentum, weightDecay float64) (gr *graph, err error) {
	defer func() {
		// Gorgonia panics on some shape errors; turn them into errors.
		if r := recover(); r != nil {
			gr, err = nil, fmt.Errorf("learn: building the graph: %v", r)
		}
	}()
	installBLAS()
	c := net.Config
	g := G.NewGraph()
	gr = &graph{g: g, dt: dt, batch: batch, nodes: make([]*G.Node, len(net.Tensors))}
	idx := map[string]int{}
	bnParam := map[string]bool{} // batch-norm gamma and beta, shaped (1, C, 1, 1)
	layers := model.Spec(c)
	if err := model.CheckSpec(layers); err != nil {
		return nil, err
	}
	for _, l := range layers {
		if l.Kind == model.ConvBN {
			bnParam[l.BN+"/gamma"], bnParam[l.BN+"/beta"] = true, true
		}
	}
	for i, t := range net.Tensors {
		idx[t.Name] = i
		if !t.Kind.Trainable() {
			continue
		}
		shape := t.Shape
		switch {
		case bnParam[t.Name]:
			shape = []int{1, t.Shape[0], 1, 1}
		case t.Kind == model.Bias:
			shape = []int{1, t.Shape[0]}
		}
		gr.nodes[i] = G.NewTensor(g, dt, len(shape), G.WithShape(shape...), G.WithName(t.Name), G.WithValue(newDense(dt, shape, t.Data)))
		gr.learn = append(gr.learn, gr.nodes[i])
		gr.learnIdx = append(gr.learnIdx, i)
	}
	node := func(name string) *G.Node { return gr.nodes[idx[name]] }
	gr.x = G.NewTensor(g, dt, 4, G.WithShape(gr.inputShape()...), G.WithName("x"))

	// convBNReLU is max(0, BN(conv(x)) + residual), residual nil meaning 0.
	convBNReLU := func(x *G.Node, conv, bn string, k int, residual *G.Node) (*G.Node, error) {
		if dt == tensor.Float32 {
			// Our ops: the convolution on package kernel, the batch norm's
			// normalisation, then its scale and shift, the residual and the
			// ReLU in one op.
			y, err := conv2d(x, node(conv), k, x != gr.x) // the input planes need no gradient
			if err != nil {
				return nil, fmt.Errorf("%s: %w", conv, err)
			}
			op, err := newBNOp(y.Shape(), bnMomentum, model.BNEpsilon)
			if err == nil {
				y, err = G.ApplyOp(op, y)
			}
			if err == nil {
				y, err = affineReLU(y, node(bn+"/gamma"), node(bn+"/beta"), residual)
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %w", bn, err)
			}
			gr.bn = append(gr.bn, op)
			gr.bnStats = append(gr.bnStats, [2]int{idx[bn+"/mean"], idx[bn+"/var"]})
			return y, nil
		}
		pad := (k - 1) / 2
		y, err := G.Conv2d(x, node(conv), tensor.Shape{k, k}, []int{pad, pad}, []int{1, 1}, []int{1, 1})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", conv, err)
		}
		y, _, _, op, err := G.BatchNorm(y, node(bn+"/gamma"), node(bn+"/beta"), bnMomentum, model.BNEpsilon)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", bn, err)
		}
		gr.bn = append(gr.bn, op)
		gr.bnStats = append(gr.bnStats, [2]int{idx[bn+"/mean"], idx[bn+"/var"]})
		if residual != nil {
			y = G.Must(G.Add(y, residual))
		}
		return G.Rectify(y)
	}
	// The layers of the spec, each reading an earlier one's output.
	outs := make([]*G.Node, len(layers))
	for i, l := range layers {
		x := gr.x
		if l.In >= 0 {
			x = outs[l.In]
		}
		var y *G.Node
		var err error
		switch l.Kind {
		case model.ConvBN:
			var res *G.Node
			if l.Residual >= 0 {
				res = outs[l.Residual]
			}
			if !l.ReLU {
				return nil, fmt.Errorf("learn: layer %s: the training graph's convolutions end in a ReLU", l.Name)
			}
			y, err = convBNReLU(x, l.Name, l.BN, l.K, res)
		case model.FullyConnected:
			if l.In >= 0 && layers[l.In].Kind == model.ConvBN {
				// Channel-major, the order of the dense weight's rows.
				if dt == tensor.Float32 {
					x, err = flattenNCHW(x)
				} else {
					x, err = G.Reshape(x, tensor.Shape{batch, l.Cin})
				}
				if err != nil {
					return nil, fmt.Errorf("learn: layer %s: %w", l.Name, err)
				}
			}
			if y, err = G.Mul(x, node(l.Name+"/w")); err == nil {
				y, err = G.BroadcastAdd(y, node(l.Name+"/b"), nil, []byte{0})
			}
			if err == nil && l.ReLU {
				y, err = G.Rectify(y)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("learn: layer %s: %w", l.Name, err)
		}
		outs[i] = y
		switch l.Output {
		case model.PolicyOutput:
			gr.policy = y
		case model.WDLOutput:
			gr.value = y
		}
	}
	if !loss {
		return gr, nil
	}

	gr.mask = G.NewMatrix(g, dt, G.WithShape(batch, model.PolicySize), G.WithName("mask"))
	gr.ptarget = G.NewMatrix(g, dt, G.WithShape(batch, model.PolicySize), G.WithName("policy_target"))
	gr.vtarget = G.NewMatrix(g, dt, G.WithShape(batch, model.ValueSize), G.WithName("wdl_target"))
	invB := scalar(dt, 1/float64(batch))
	gr.logp = G.Must(G.LogSoftMax(G.Must(G.Add(gr.policy, gr.mask))))
	gr.policyLoss = G.Must(G.Neg(G.Must(G.Mul(G.Must(G.Sum(G.Must(G.HadamardProd(gr.ptarget, gr.logp)))), invB))))
	logv := G.Must(G.LogSoftMax(gr.value))
	gr.valueLoss = G.Must(G.Neg(G.Must(G.Mul(G.Must(G.Sum(G.Must(G.HadamardProd(gr.vtarget, logv)))), invB))))
	var sq *G.Node
	for i, t := range net.Tensors {
		if t.Kind != model.Weight {
			continue
		}
		s := G.Must(G.Sum(G.Must(G.Square(gr.nodes[i]))))
		if sq == nil {
			sq = s
		} else {
			sq = G.Must(G.Add(sq, s))
		}
	}
	gr.l2 = G.Must(G.Mul(sq, scalar(dt, weightDecay)))
	gr.cost = G.Must(G.Add(G.Must(G.Add(gr.policyLoss, gr.valueLoss)), gr.l2))
	if _, err := G.Grad(gr.cost, gr.learn...); err != nil {
		return nil, fmt.Errorf("learn: gradients: %w", err)
	}
	return gr, nil
}

// setStats copies the network's running statistics into the graph's batch
// norms (a new machine resets them, so call it after creating one).
func (gr *graph) setStats(net *model.Network) error {
	for i, op := range gr.bn {
		mi, vi := gr.bnStats[i][0], gr.bnStats[i][1]
		m, v := net.Tensors[mi], net.Tensors[vi]
		if err := op.SetStats(newDense(gr.dt, m.Shape, m.Data), newDense(gr.dt, v.Shape, v.Data)); err != nil {
			return fmt.Errorf("learn: batch norm %s: %w", m.Name, err)
		}
	}
	return nil
}

// readStats copies the graph's running statistics into net.
func (gr *graph) readStats(net *model.Network) {
	for i, op := range gr.bn {
		mean, vr := op.Stats()
		copyOut(net.Tensors[gr.bnStats[i][0]].Data, mean.Data())
		copyOut(net.Tensors[gr.bnStats[i][1]].Data, vr.Data())
	}
}

// readParams copies the graph's trainable values into net.
func (gr *graph) readParams(net *model.Network) {
	for k, n := range gr.learn {
		copyOut(net.Tensors[gr.learnIdx[k]].Data, n.Value().Data())
	}
}

// copyOut copies a float32 or float64 backing slice into dst.
func copyOut(dst []float32, src interface{}) {
	switch s := src.(type) {
	case []float32:
		copy(dst, s)
	case []float64:
		for i := range dst {
			dst[i] = float32(s[i])
		}
	}
}

// inputShape is the shape of the graph's input planes.
func (gr *graph) inputShape() []int {
	if gr.dt == tensor.Float32 {
		return []int{gr.batch, model.Rows, model.Cols, model.NumPlanes}
	}
	return []int{gr.batch, model.NumPlanes, model.Rows, model.Cols}
}
