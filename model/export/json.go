package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"dama/internal/atomicfile"
	"dama/model"
)

// JSONFormat and JSONVersion identify the JSON export; a reader rejects any
// other format name or version.
const (
	JSONFormat  = "dama-net-json"
	JSONVersion = 1
)

// JSONFile is the JSON export of a network. Every batch norm is folded into
// the convolution before it. Layers come in the order of the forward pass
// (Forward documents it): input/conv, block0/conv1, block0/conv2, ...,
// policy/conv, policy/dense, value/conv, value/dense1, value/dense2.
type JSONFile struct {
	Format   string            `json:"format"`  // JSONFormat
	Version  int               `json:"version"` // JSONVersion
	Config   JSONConfig        `json:"config"`
	Encoding JSONEncoding      `json:"encoding"`
	Forward  []string          `json:"forward"`  // the forward pass, step by step, in words
	Metadata map[string]string `json:"metadata"` // the same dama.* entries as the ONNX metadata_props, plus extras
	Layers   []JSONLayer       `json:"layers,omitempty"`
}

// JSONConfig is the network's shape.
type JSONConfig struct {
	Name          string `json:"name"`
	Blocks        int    `json:"blocks"`
	Filters       int    `json:"filters"`
	PolicyFilters int    `json:"policy_filters"`
	ValueFilters  int    `json:"value_filters"`
	ValueHidden   int    `json:"value_hidden"`
}

// JSONEncoding describes the input planes and the outputs.
type JSONEncoding struct {
	Rows         int      `json:"rows"`         // 8
	Cols         int      `json:"cols"`         // 4
	Planes       []string `json:"planes"`       // plane names in order
	InputLayout  string   `json:"input_layout"` // "NHWC"
	Board        string   `json:"board"`        // square -> (row, column), side to move's frame
	PolicySize   int      `json:"policy_size"`  // 1024
	PolicyIndex  string   `json:"policy_index"` // (from-1)*32 + (to-1), mover's frame
	WDL          []string `json:"wdl"`          // ["win", "draw", "loss"]
	WDLOutput    string   `json:"wdl_output"`   // "softmax of the value head's 3 logits"
	PolicyOutput string   `json:"policy_output"`
}

// JSONLayer is one convolution or dense layer. A conv has Shape [out, in,
// k, k] (Weight row-major in that order, zero padding k/2 on the 8x4 image);
// a dense layer has Shape [in, out] (out[j] = bias[j] + sum in[i]*W[i][j]).
type JSONLayer struct {
	Name   string    `json:"name"`
	Type   string    `json:"type"` // "conv" or "dense"
	Shape  []int     `json:"shape"`
	Weight []float32 `json:"weight"`
	Bias   []float32 `json:"bias"`
}

var planeNames = []string{"own men", "own kings", "opponent men", "opponent kings",
	"repeated once", "repeated twice", "40-move counter/80", "even row", "ones"}

var forwardSteps = []string{
	"x = relu(conv(input/conv, planes))  (planes NHWC [8,4,9], activations [channels, 8, 4])",
	"for each block: x = relu(x + conv(blockI/conv2, relu(conv(blockI/conv1, x))))",
	"p = relu(conv(policy/conv, x)); policy = dense(policy/dense, flatten(p))  (1024 logits)",
	"v = relu(conv(value/conv, x)); v = relu(dense(value/dense1, flatten(v))); wdl = softmax(dense(value/dense2, v))",
	"flatten takes [channels, 8, 4] in channel-major order: index channel*32 + row*4 + column",
}

// ToJSON returns the JSON export of n with extra metadata appended.
func ToJSON(n *Net, extra []KV) (*JSONFile, error) {
	if err := n.Check(); err != nil {
		return nil, err
	}
	c := n.Config
	f := &JSONFile{
		Format:  JSONFormat,
		Version: JSONVersion,
		Config: JSONConfig{Name: c.Name, Blocks: c.Blocks, Filters: c.Filters,
			PolicyFilters: c.PolicyFilters, ValueFilters: c.ValueFilters, ValueHidden: c.ValueHidden},
		Encoding: JSONEncoding{
			Rows: model.Rows, Cols: model.Cols, Planes: planeNames, InputLayout: "NHWC",
			Board:        "side to move's frame (for Black: square s -> 33-s, colours swapped); square s at row (s-1)/4, column (s-1)%4",
			PolicySize:   model.PolicySize,
			PolicyIndex:  "(from-1)*32 + (to-1), from and to in the side to move's frame",
			PolicyOutput: "logits; softmax over the legal moves' indices only",
			WDL:          []string{"win", "draw", "loss"},
			WDLOutput:    "softmax of the value head's 3 logits, for the side to move",
		},
		Forward:  forwardSteps,
		Metadata: map[string]string{},
	}
	for _, kv := range append(Metadata(n), extra...) {
		f.Metadata[kv.Key] = kv.Value
	}
	conv := func(name string, cv *Conv) {
		f.Layers = append(f.Layers, JSONLayer{Name: name, Type: "conv", Shape: []int{cv.Out, cv.In, cv.K, cv.K}, Weight: cv.W, Bias: cv.B})
	}
	dense := func(name string, d *Dense) {
		f.Layers = append(f.Layers, JSONLayer{Name: name, Type: "dense", Shape: []int{d.In, d.Out}, Weight: d.W, Bias: d.B})
	}
	conv("input/conv", &n.Input)
	for i := range n.Blocks {
		conv(fmt.Sprintf("block%d/conv1", i), &n.Blocks[i].Conv1)
		conv(fmt.Sprintf("block%d/conv2", i), &n.Blocks[i].Conv2)
	}
	conv("policy/conv", &n.PolicyConv)
	dense("policy/dense", &n.PolicyDense)
	conv("value/conv", &n.ValueConv)
	dense("value/dense1", &n.ValueDense1)
	dense("value/dense2", &n.ValueDense2)
	return f, nil
}

// WriteJSON writes the JSON export of n to w: the header indented, then
// one line per layer.
func WriteJSON(w io.Writer, n *Net, extra []KV) error {
	f, err := ToJSON(n, extra)
	if err != nil {
		return err
	}
	layers := f.Layers
	f.Layers = nil
	var head bytes.Buffer
	enc := json.NewEncoder(&head)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(f); err != nil {
		return fmt.Errorf("export: JSON: %w", err)
	}
	var buf bytes.Buffer
	buf.Write(bytes.TrimSuffix(head.Bytes(), []byte("\n}\n")))
	buf.WriteString(",\n \"layers\": [\n")
	var line bytes.Buffer
	lenc := json.NewEncoder(&line)
	lenc.SetEscapeHTML(false)
	for i := range layers {
		line.Reset()
		if err := lenc.Encode(&layers[i]); err != nil {
			return fmt.Errorf("export: JSON layer %s: %w", layers[i].Name, err)
		}
		buf.WriteString("  ")
		buf.Write(bytes.TrimSuffix(line.Bytes(), []byte("\n")))
		if i < len(layers)-1 {
			buf.WriteByte(',')
		}
		buf.WriteByte('\n')
	}
	buf.WriteString(" ]\n}\n")
	_, err = w.Write(buf.Bytes())
	return err
}

// SaveJSON writes the JSON export of n to path through a temporary file
// renamed into place.
func SaveJSON(path string, n *Net, extra []KV) error {
	return atomicfile.Write(path, func(w io.Writer) error { return WriteJSON(w, n, extra) })
}

// ReadJSON reads a JSON export back into a Net, checking the format, the
// version, the layer names, types and shapes.
func ReadJSON(r io.Reader) (*Net, error) {
	var f JSONFile
	dec := json.NewDecoder(r)
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("export: JSON: %w", err)
	}
	if f.Format != JSONFormat {
		return nil, fmt.Errorf("export: JSON field format is %q, want %q", f.Format, JSONFormat)
	}
	if f.Version != JSONVersion {
		return nil, fmt.Errorf("export: JSON version %d not supported (this reader knows %d)", f.Version, JSONVersion)
	}
	c := f.Config
	n := &Net{Config: model.Config{Name: c.Name, Blocks: c.Blocks, Filters: c.Filters,
		PolicyFilters: c.PolicyFilters, ValueFilters: c.ValueFilters, ValueHidden: c.ValueHidden}}
	if err := n.Config.Validate(); err != nil {
		return nil, fmt.Errorf("export: JSON config: %w", err)
	}
	want := 1 + 2*c.Blocks + 2 + 3 // input, two per block, policy conv and dense, value conv and two dense
	if len(f.Layers) != want {
		return nil, fmt.Errorf("export: JSON has %d layers, config with %d blocks needs %d", len(f.Layers), c.Blocks, want)
	}
	i := 0
	next := func(name, typ string) (*JSONLayer, error) {
		l := &f.Layers[i]
		i++
		if l.Name != name || l.Type != typ {
			return nil, fmt.Errorf("export: JSON layer %d is %s %q, want %s %q", i-1, l.Type, l.Name, typ, name)
		}
		return l, nil
	}
	conv := func(name string, dst *Conv) error {
		l, err := next(name, "conv")
		if err != nil {
			return err
		}
		if len(l.Shape) != 4 || l.Shape[2] != l.Shape[3] {
			return fmt.Errorf("export: JSON layer %s has shape %v, want [out, in, k, k]", name, l.Shape)
		}
		*dst = Conv{Out: l.Shape[0], In: l.Shape[1], K: l.Shape[2], W: l.Weight, B: l.Bias}
		return nil
	}
	dense := func(name string, dst *Dense) error {
		l, err := next(name, "dense")
		if err != nil {
			return err
		}
		if len(l.Shape) != 2 {
			return fmt.Errorf("export: JSON layer %s has shape %v, want [in, out]", name, l.Shape)
		}
		*dst = Dense{In: l.Shape[0], Out: l.Shape[1], W: l.Weight, B: l.Bias}
		return nil
	}
	var errs []error
	errs = append(errs, conv("input/conv", &n.Input))
	n.Blocks = make([]Block, c.Blocks)
	for b := range n.Blocks {
		errs = append(errs,
			conv(fmt.Sprintf("block%d/conv1", b), &n.Blocks[b].Conv1),
			conv(fmt.Sprintf("block%d/conv2", b), &n.Blocks[b].Conv2))
	}
	errs = append(errs,
		conv("policy/conv", &n.PolicyConv), dense("policy/dense", &n.PolicyDense),
		conv("value/conv", &n.ValueConv), dense("value/dense1", &n.ValueDense1), dense("value/dense2", &n.ValueDense2))
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	if err := n.Check(); err != nil {
		return nil, err
	}
	return n, nil
}
