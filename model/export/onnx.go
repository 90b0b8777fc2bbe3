package export

import (
	"fmt"
	"io"
	"strconv"

	"dama/internal/atomicfile"
	"dama/model"
)

// ONNX constants used here (onnx.proto).
const (
	// OpsetVersion is the ONNX operator set the exported graph uses.
	OpsetVersion = 13
	// IRVersion is the ONNX IR version matching OpsetVersion.
	IRVersion = 7

	onnxFloat     = 1 // TensorProto.DataType FLOAT
	attrInt       = 2 // AttributeProto.AttributeType INT
	attrInts      = 7 // AttributeProto.AttributeType INTS
	batchDimParam = "N"
)

// The names of the graph's input and outputs.
const (
	InputName  = "planes"
	PolicyName = "policy"
	WDLName    = "wdl"
)

// MetadataVersion is the version of the dama.* metadata keys and of the
// graph's interface (input and output names, shapes and meanings).
const MetadataVersion = 1

// KV is one metadata entry (ONNX StringStringEntryProto).
type KV struct{ Key, Value string }

// Options adds information to an exported file.
type Options struct {
	Producer string // producer_version, e.g. the dama revision; "" for none
	Metadata []KV   // extra metadata_props (e.g. source checkpoint, step), after the standard ones
}

// Metadata returns the standard metadata entries describing n's interface:
// the encoding of the input, the policy index and the WDL order. They are
// written to ONNX metadata_props and to the JSON file.
func Metadata(n *Net) []KV {
	c := n.Config
	return []KV{
		{"dama.format", "dama-net"},
		{"dama.metadata_version", strconv.Itoa(MetadataVersion)},
		{"dama.model_format_version", strconv.Itoa(model.FormatVersion)},
		{"dama.config", fmt.Sprintf("name=%s blocks=%d filters=%d policy_filters=%d value_filters=%d value_hidden=%d",
			c.Name, c.Blocks, c.Filters, c.PolicyFilters, c.ValueFilters, c.ValueHidden)},
		{"dama.config_digest", c.Digest()},
		{"dama.game", "Italian draughts (FID rules), squares numbered 1..32 in FID order"},
		{"dama.input", fmt.Sprintf("%s: float32 [N, %d, %d, %d] (NHWC): batch, board row, board column, plane", InputName, model.Rows, model.Cols, model.NumPlanes)},
		{"dama.board", "from the side to move's point of view: for Black the board is turned by 180 degrees (square s becomes 33-s) and colours are swapped; square s (1..32, FID numbering in that frame) sits at row (s-1)/4, column (s-1)%4"},
		{"dama.planes", "0 own men, 1 own kings, 2 opponent men, 3 opponent kings (1 where present); 4 repeated once (constant 1 if the position occurred before), 5 repeated twice; 6 40-move counter (constant quiet plies/80); 7 even row (1 on rows 0, 2, 4, 6); 8 ones (constant 1)"},
		{"dama.policy", fmt.Sprintf("%s: float32 [N, %d] logits; index (from-1)*32 + (to-1), from and to in the side to move's frame; captures with the same start and end share an index; softmax over the legal moves' indices only", PolicyName, model.PolicySize)},
		{"dama.wdl", fmt.Sprintf("%s: float32 [N, 3] probabilities, order win, draw, loss for the side to move; expected score = win + draw/2", WDLName)},
		{"dama.batchnorm", "folded into the convolutions"},
	}
}

// SaveONNX writes n as an ONNX model to path, through a temporary file in
// the same folder renamed into place.
func SaveONNX(path string, n *Net, opt Options) error {
	return atomicfile.Write(path, func(w io.Writer) error { return WriteONNX(w, n, opt) })
}

// WriteONNX writes n as an ONNX model (IR version 7, opset 13) to w. The
// batch dimension is symbolic ("N").
func WriteONNX(w io.Writer, n *Net, opt Options) error {
	if err := n.Check(); err != nil {
		return err
	}
	g := &graphBuilder{}
	x := g.node("Transpose", "input/nchw", []string{InputName}, intsAttr("perm", 0, 3, 1, 2))
	x = g.conv("input", x, &n.Input)
	x = g.node("Relu", "input/relu", []string{x})
	for i := range n.Blocks {
		p := fmt.Sprintf("block%d", i)
		y := g.conv(p+"/conv1", x, &n.Blocks[i].Conv1)
		y = g.node("Relu", p+"/relu1", []string{y})
		y = g.conv(p+"/conv2", y, &n.Blocks[i].Conv2)
		y = g.node("Add", p+"/add", []string{y, x})
		x = g.node("Relu", p+"/relu2", []string{y})
	}
	pol := g.conv("policy/conv", x, &n.PolicyConv)
	pol = g.node("Relu", "policy/relu", []string{pol})
	pol = g.node("Flatten", "policy/flatten", []string{pol}, intAttr("axis", 1))
	g.gemm("policy/dense", pol, &n.PolicyDense, PolicyName)
	val := g.conv("value/conv", x, &n.ValueConv)
	val = g.node("Relu", "value/relu", []string{val})
	val = g.node("Flatten", "value/flatten", []string{val}, intAttr("axis", 1))
	val = g.gemm("value/dense1", val, &n.ValueDense1, "")
	val = g.node("Relu", "value/relu1", []string{val})
	val = g.gemm("value/dense2", val, &n.ValueDense2, "")
	g.nodeOut("Softmax", "value/softmax", []string{val}, WDLName, intAttr("axis", 1))

	var graph pb
	for i := range g.nodes {
		graph.message(1, &g.nodes[i])
	}
	graph.string(2, "dama")
	for i := range g.inits {
		graph.message(5, &g.inits[i])
	}
	graph.string(10, "dama policy-value network for Italian draughts; see metadata_props for the encoding")
	graph.message(11, valueInfo(InputName, "board planes, NHWC, side to move's frame (see dama.input, dama.board, dama.planes)",
		model.Rows, model.Cols, model.NumPlanes))
	graph.message(12, valueInfo(PolicyName, "policy logits (see dama.policy)", model.PolicySize))
	graph.message(12, valueInfo(WDLName, "win/draw/loss probabilities for the side to move (see dama.wdl)", model.ValueSize))

	var m pb
	m.int64(1, IRVersion)
	m.string(2, "dama")
	if opt.Producer != "" {
		m.string(3, opt.Producer)
	}
	m.string(4, "dama")
	m.int64(5, MetadataVersion)
	m.string(6, "dama policy-value network for Italian draughts: input planes [N,8,4,9] NHWC, outputs policy logits [N,1024] and wdl probabilities [N,3]")
	m.message(7, &graph)
	var opset pb
	opset.string(1, "")
	opset.int64(2, OpsetVersion)
	m.message(8, &opset)
	for _, kv := range append(Metadata(n), opt.Metadata...) {
		var e pb
		e.string(1, kv.Key)
		e.string(2, kv.Value)
		m.message(14, &e)
	}
	_, err := w.Write(m.b)
	return err
}

// graphBuilder collects nodes and initializers; node outputs are named after
// the nodes.
type graphBuilder struct {
	nodes, inits []pb
}

type attr func(*pb)

func intAttr(name string, v int64) attr {
	return func(a *pb) {
		a.string(1, name)
		a.int64(20, attrInt)
		a.int64(3, v)
	}
}

func intsAttr(name string, v ...int64) attr {
	return func(a *pb) {
		a.string(1, name)
		a.int64(20, attrInts)
		for _, x := range v {
			a.int64(8, x)
		}
	}
}

// node adds a node whose single output is named after it and returns that name.
func (g *graphBuilder) node(op, name string, inputs []string, attrs ...attr) string {
	return g.nodeOut(op, name, inputs, name, attrs...)
}

func (g *graphBuilder) nodeOut(op, name string, inputs []string, output string, attrs ...attr) string {
	var n pb
	for _, in := range inputs {
		n.string(1, in)
	}
	n.string(2, output)
	n.string(3, name)
	n.string(4, op)
	for _, a := range attrs {
		var ap pb
		a(&ap)
		n.message(5, &ap)
	}
	g.nodes = append(g.nodes, n)
	return output
}

// init adds a float tensor initializer.
func (g *graphBuilder) init(name string, data []float32, dims ...int) string {
	var t pb
	for _, d := range dims {
		t.int64(1, int64(d))
	}
	t.int64(2, onnxFloat)
	t.string(8, name)
	t.bytes(9, float32s(data))
	g.inits = append(g.inits, t)
	return name
}

func (g *graphBuilder) conv(name, x string, c *Conv) string {
	w := g.init(name+"/w", c.W, c.Out, c.In, c.K, c.K)
	b := g.init(name+"/b", c.B, c.Out)
	p := int64(c.K / 2)
	return g.node("Conv", name, []string{x, w, b},
		intsAttr("kernel_shape", int64(c.K), int64(c.K)),
		intsAttr("pads", p, p, p, p),
		intsAttr("strides", 1, 1))
}

// gemm adds x*W + B; output "" names the result after the node.
func (g *graphBuilder) gemm(name, x string, d *Dense, output string) string {
	w := g.init(name+"/w", d.W, d.In, d.Out)
	b := g.init(name+"/b", d.B, d.Out)
	if output == "" {
		output = name
	}
	return g.nodeOut("Gemm", name, []string{x, w, b}, output)
}

// valueInfo describes a float tensor [N, dims...].
func valueInfo(name, doc string, dims ...int) *pb {
	var shape pb
	var d pb
	d.string(2, batchDimParam)
	shape.message(1, &d)
	for _, v := range dims {
		var dd pb
		dd.int64(1, int64(v))
		shape.message(1, &dd)
	}
	var tt pb
	tt.int64(1, onnxFloat)
	tt.message(2, &shape)
	var typ pb
	typ.message(1, &tt)
	var vi pb
	vi.string(1, name)
	vi.message(2, &typ)
	vi.string(3, doc)
	return &vi
}
