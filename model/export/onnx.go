package export

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strconv"

	"google.golang.org/protobuf/encoding/protowire"

	"dama/internal/atomicfile"
	"dama/model"
)

// ONNX versions of the exported file.
const (
	// onnxOpset is the ONNX operator set the exported graph uses.
	onnxOpset = 13
	// onnxIRVersion is the ONNX IR version matching onnxOpset.
	onnxIRVersion = 7

	batchDimParam = "N"
)

// Field numbers and enum values of onnx.proto (IR version 7), by message.
const (
	modelIRVersion       protowire.Number = 1 // ModelProto
	modelProducerName    protowire.Number = 2
	modelProducerVersion protowire.Number = 3
	modelDomain          protowire.Number = 4
	modelModelVersion    protowire.Number = 5
	modelDocString       protowire.Number = 6
	modelGraph           protowire.Number = 7
	modelOpsetImport     protowire.Number = 8
	modelMetadataProps   protowire.Number = 14

	opsetDomain  protowire.Number = 1 // OperatorSetIdProto
	opsetVersion protowire.Number = 2

	entryKey   protowire.Number = 1 // StringStringEntryProto
	entryValue protowire.Number = 2

	graphNode        protowire.Number = 1 // GraphProto
	graphName        protowire.Number = 2
	graphInitializer protowire.Number = 5
	graphDocString   protowire.Number = 10
	graphInput       protowire.Number = 11
	graphOutput      protowire.Number = 12

	nodeInput     protowire.Number = 1 // NodeProto
	nodeOutput    protowire.Number = 2
	nodeName      protowire.Number = 3
	nodeOpType    protowire.Number = 4
	nodeAttribute protowire.Number = 5

	attrName protowire.Number = 1 // AttributeProto
	attrI    protowire.Number = 3
	attrInts protowire.Number = 8
	attrType protowire.Number = 20

	attrTypeInt  = 2 // AttributeProto.AttributeType INT
	attrTypeInts = 7 // AttributeProto.AttributeType INTS

	tensorDims     protowire.Number = 1 // TensorProto
	tensorDataType protowire.Number = 2
	tensorName     protowire.Number = 8
	tensorRawData  protowire.Number = 9

	dataTypeFloat = 1 // TensorProto.DataType FLOAT

	valueInfoName      protowire.Number = 1 // ValueInfoProto
	valueInfoType      protowire.Number = 2
	valueInfoDocString protowire.Number = 3

	typeTensorType protowire.Number = 1 // TypeProto

	tensorTypeElemType protowire.Number = 1 // TypeProto.Tensor
	tensorTypeShape    protowire.Number = 2

	shapeDim protowire.Number = 1 // TensorShapeProto

	dimValue protowire.Number = 1 // TensorShapeProto.Dimension
	dimParam protowire.Number = 2
)

// The names of the graph's input and outputs.
const (
	inputName  = "planes"
	policyName = "policy"
	wdlName    = "wdl"
)

// metadataVersion is the version of the dama.* metadata keys and of the
// graph's interface (input and output names, shapes and meanings).
const metadataVersion = 1

// KV is one metadata entry (ONNX StringStringEntryProto).
type KV struct{ Key, Value string }

// Options adds information to an exported file.
type Options struct {
	Producer string // producer_version, e.g. the dama revision; "" for none
	Metadata []KV   // extra metadata_props (e.g. source checkpoint, step), after the standard ones
}

// metadata returns the standard metadata entries describing n's interface:
// the encoding of the input, the policy index and the WDL order. They are
// written to ONNX metadata_props and to the JSON file.
func metadata(n *Net) []KV {
	c := n.Config
	return []KV{
		{"dama.format", "dama-net"},
		{"dama.metadata_version", strconv.Itoa(metadataVersion)},
		{"dama.model_format_version", strconv.Itoa(model.FormatVersion)},
		{"dama.config", fmt.Sprintf("name=%s blocks=%d filters=%d policy_filters=%d value_filters=%d value_hidden=%d",
			c.Name, c.Blocks, c.Filters, c.PolicyFilters, c.ValueFilters, c.ValueHidden)},
		{"dama.config_digest", c.Digest()},
		{"dama.game", "Italian draughts (FID rules), squares numbered 1..32 in FID order"},
		{"dama.input", fmt.Sprintf("%s: float32 [N, %d, %d, %d] (NHWC): batch, board row, board column, plane", inputName, model.Rows, model.Cols, model.NumPlanes)},
		{"dama.board", "from the side to move's point of view: for Black the board is turned by 180 degrees (square s becomes 33-s) and colours are swapped; square s (1..32, FID numbering in that frame) sits at row (s-1)/4, column (s-1)%4"},
		{"dama.planes", "0 own men, 1 own kings, 2 opponent men, 3 opponent kings (1 where present); 4 repeated once (constant 1 if the position occurred before), 5 repeated twice; 6 40-move counter (constant quiet plies/80); 7 even row (1 on rows 0, 2, 4, 6); 8 ones (constant 1)"},
		{"dama.policy", fmt.Sprintf("%s: float32 [N, %d] logits; index (from-1)*32 + (to-1), from and to in the side to move's frame; captures with the same start and end share an index; softmax over the legal moves' indices only", policyName, model.PolicySize)},
		{"dama.wdl", fmt.Sprintf("%s: float32 [N, 3] probabilities, order win, draw, loss for the side to move; expected score = win + draw/2", wdlName)},
		{"dama.batchnorm", "folded into the convolutions"},
	}
}

// SaveONNX writes n as an ONNX model to path, through a temporary file in
// the same folder renamed into place.
func SaveONNX(path string, n *Net, opt Options) error {
	return atomicfile.Write(path, func(w io.Writer) error { return writeONNX(w, n, opt) })
}

// WriteONNX writes n as an ONNX model to w, as SaveONNX writes it to a
// file (for a writer that stages several files together).
func WriteONNX(w io.Writer, n *Net, opt Options) error { return writeONNX(w, n, opt) }

// writeONNX writes n as an ONNX model (IR version 7, opset 13) to w. The
// batch dimension is symbolic ("N"). The graph is built from the layers of
// the spec: a convolution is Conv (then Add of its residual, then Relu), a
// dense layer is Gemm (after Flatten when it reads a convolution, then
// Relu), and the value output goes through Softmax.
func writeONNX(w io.Writer, n *Net, opt Options) error {
	if err := n.Check(); err != nil {
		return err
	}
	g := &graphBuilder{}
	planes := g.node("Transpose", "input/nchw", []string{inputName}, intsAttr("perm", 0, 3, 1, 2))
	outs := make([]string, len(n.Layers))
	for i := range n.Layers {
		l := &n.Layers[i]
		x := planes
		if l.In >= 0 {
			x = outs[l.In]
		}
		var y string
		if l.Kind == model.ConvBN {
			y = g.conv(l, x)
		} else {
			if l.In >= 0 && n.Layers[l.In].Kind == model.ConvBN {
				x = g.node("Flatten", l.Name+"/flatten", []string{x}, intAttr("axis", 1))
			}
			out := ""
			if l.Output == model.PolicyOutput {
				out = policyName
			}
			y = g.gemm(l, x, out)
		}
		if l.Residual >= 0 {
			y = g.node("Add", l.Name+"/add", []string{y, outs[l.Residual]})
		}
		if l.ReLU {
			y = g.node("Relu", l.Name+"/relu", []string{y})
		}
		if l.Output == model.WDLOutput {
			y = g.nodeOut("Softmax", l.Name+"/softmax", []string{y}, wdlName, intAttr("axis", 1))
		}
		outs[i] = y
	}

	var graph message
	for _, nd := range g.nodes {
		graph.message(graphNode, nd)
	}
	graph.string(graphName, "dama")
	for _, in := range g.inits {
		graph.message(graphInitializer, in)
	}
	graph.string(graphDocString, "dama policy-value network for Italian draughts; see metadata_props for the encoding")
	graph.message(graphInput, valueInfo(inputName, "board planes, NHWC, side to move's frame (see dama.input, dama.board, dama.planes)",
		model.Rows, model.Cols, model.NumPlanes))
	graph.message(graphOutput, valueInfo(policyName, "policy logits (see dama.policy)", model.PolicySize))
	graph.message(graphOutput, valueInfo(wdlName, "win/draw/loss probabilities for the side to move (see dama.wdl)", model.ValueSize))

	var m message
	m.varint(modelIRVersion, onnxIRVersion)
	m.string(modelProducerName, "dama")
	if opt.Producer != "" {
		m.string(modelProducerVersion, opt.Producer)
	}
	m.string(modelDomain, "dama")
	m.varint(modelModelVersion, metadataVersion)
	m.string(modelDocString, "dama policy-value network for Italian draughts: input planes [N,8,4,9] NHWC, outputs policy logits [N,1024] and wdl probabilities [N,3]")
	m.message(modelGraph, graph)
	var opset message
	opset.string(opsetDomain, "")
	opset.varint(opsetVersion, onnxOpset)
	m.message(modelOpsetImport, opset)
	for _, kv := range append(metadata(n), opt.Metadata...) {
		var e message
		e.string(entryKey, kv.Key)
		e.string(entryValue, kv.Value)
		m.message(modelMetadataProps, e)
	}
	_, err := w.Write(m)
	return err
}

// message is a protocol buffers message in wire format, built bottom-up
// with protowire: nested messages are encoded first and appended as bytes
// fields.
type message []byte

// varint appends a varint field (int32, int64 and enum fields; negative
// values take ten bytes, as the format requires).
func (m *message) varint(f protowire.Number, v int64) {
	*m = protowire.AppendTag(*m, f, protowire.VarintType)
	*m = protowire.AppendVarint(*m, uint64(v))
}

func (m *message) bytes(f protowire.Number, b []byte) {
	*m = protowire.AppendTag(*m, f, protowire.BytesType)
	*m = protowire.AppendBytes(*m, b)
}

func (m *message) string(f protowire.Number, s string) {
	*m = protowire.AppendTag(*m, f, protowire.BytesType)
	*m = protowire.AppendString(*m, s)
}

func (m *message) message(f protowire.Number, sub message) { m.bytes(f, sub) }

// graphBuilder collects nodes and initializers; node outputs are named after
// the nodes.
type graphBuilder struct {
	nodes, inits []message
}

type attr func(*message)

func intAttr(name string, v int64) attr {
	return func(a *message) {
		a.string(attrName, name)
		a.varint(attrType, attrTypeInt)
		a.varint(attrI, v)
	}
}

func intsAttr(name string, v ...int64) attr {
	return func(a *message) {
		a.string(attrName, name)
		a.varint(attrType, attrTypeInts)
		for _, x := range v {
			a.varint(attrInts, x)
		}
	}
}

// node adds a node whose single output is named after it and returns that name.
func (g *graphBuilder) node(op, name string, inputs []string, attrs ...attr) string {
	return g.nodeOut(op, name, inputs, name, attrs...)
}

func (g *graphBuilder) nodeOut(op, name string, inputs []string, output string, attrs ...attr) string {
	var n message
	for _, in := range inputs {
		n.string(nodeInput, in)
	}
	n.string(nodeOutput, output)
	n.string(nodeName, name)
	n.string(nodeOpType, op)
	for _, a := range attrs {
		var am message
		a(&am)
		n.message(nodeAttribute, am)
	}
	g.nodes = append(g.nodes, n)
	return output
}

// init adds a float tensor initializer.
func (g *graphBuilder) init(name string, data []float32, dims ...int) string {
	var t message
	for _, d := range dims {
		t.varint(tensorDims, int64(d))
	}
	t.varint(tensorDataType, dataTypeFloat)
	t.string(tensorName, name)
	t.bytes(tensorRawData, float32s(data))
	g.inits = append(g.inits, t)
	return name
}

// float32s returns the little-endian bytes of v, the layout of
// TensorProto.raw_data for FLOAT tensors.
func float32s(v []float32) []byte {
	out := make([]byte, 0, 4*len(v))
	for _, x := range v {
		out = binary.LittleEndian.AppendUint32(out, math.Float32bits(x))
	}
	return out
}

// conv adds the convolution of layer l (zero padding K/2) to x.
func (g *graphBuilder) conv(l *model.FoldedLayer, x string) string {
	w := g.init(l.Name+"/w", l.W, l.Cout, l.Cin, l.K, l.K)
	b := g.init(l.Name+"/b", l.B, l.Cout)
	p := int64(l.K / 2)
	return g.node("Conv", l.Name, []string{x, w, b},
		intsAttr("kernel_shape", int64(l.K), int64(l.K)),
		intsAttr("pads", p, p, p, p),
		intsAttr("strides", 1, 1))
}

// gemm adds x*W + B of dense layer l; output "" names the result after the
// node.
func (g *graphBuilder) gemm(l *model.FoldedLayer, x string, output string) string {
	w := g.init(l.Name+"/w", l.W, l.Cin, l.Cout)
	b := g.init(l.Name+"/b", l.B, l.Cout)
	if output == "" {
		output = l.Name
	}
	return g.nodeOut("Gemm", l.Name, []string{x, w, b}, output)
}

// valueInfo describes a float tensor [N, dims...].
func valueInfo(name, doc string, dims ...int) message {
	var shape message
	var d message
	d.string(dimParam, batchDimParam)
	shape.message(shapeDim, d)
	for _, v := range dims {
		var dd message
		dd.varint(dimValue, int64(v))
		shape.message(shapeDim, dd)
	}
	var tt message
	tt.varint(tensorTypeElemType, dataTypeFloat)
	tt.message(tensorTypeShape, shape)
	var typ message
	typ.message(typeTensorType, tt)
	var vi message
	vi.string(valueInfoName, name)
	vi.message(valueInfoType, typ)
	vi.string(valueInfoDocString, doc)
	return vi
}
