package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"dama/internal/atomicfile"
	"dama/model"
)

// jsonFormat and jsonVersion identify the JSON export; a reader rejects any
// other format name or version.
const (
	jsonFormat  = "dama-net-json"
	jsonVersion = 1
)

// jsonFile is the JSON export of a network. Every batch norm is folded into
// the convolution before it. Layers come in the order of the forward pass
// (model.Spec; Forward describes it): input/conv, block0/conv1,
// block0/conv2, ..., policy/conv, policy/dense, value/conv, value/dense1,
// value/dense2.
type jsonFile struct {
	Format   string            `json:"format"`  // jsonFormat
	Version  int               `json:"version"` // jsonVersion
	Config   jsonConfig        `json:"config"`
	Encoding jsonEncoding      `json:"encoding"`
	Forward  []string          `json:"forward"`  // the forward pass, step by step, in words
	Metadata map[string]string `json:"metadata"` // the same dama.* entries as the ONNX metadata_props, plus extras
	Layers   []jsonLayer       `json:"layers,omitempty"`
}

// jsonConfig is the network's shape.
type jsonConfig struct {
	Name          string `json:"name"`
	Blocks        int    `json:"blocks"`
	Filters       int    `json:"filters"`
	PolicyFilters int    `json:"policy_filters"`
	ValueFilters  int    `json:"value_filters"`
	ValueHidden   int    `json:"value_hidden"`
}

// jsonEncoding describes the input planes and the outputs.
type jsonEncoding struct {
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

// jsonLayer is one convolution or dense layer. A conv has Shape [out, in,
// k, k] (Weight row-major in that order, zero padding k/2 on the 8x4 image);
// a dense layer has Shape [in, out] (out[j] = bias[j] + sum in[i]*W[i][j]).
type jsonLayer struct {
	Name   string    `json:"name"`
	Type   string    `json:"type"` // "conv" or "dense"
	Shape  []int     `json:"shape"`
	Weight []float32 `json:"weight"`
	Bias   []float32 `json:"bias"`
}

var planeNames = []string{"own men", "own kings", "opponent men", "opponent kings",
	"repeated once", "repeated twice", "40-move counter/80", "even row", "ones"}

// forwardSteps describes the forward pass of a network with config c in
// words, one line per layer of its spec.
func forwardSteps(c model.Config) []string {
	layers := model.Spec(c)
	steps := []string{"planes: NHWC [8,4,9]; activations [channels, 8, 4]; conv zero-pads k/2, dense after a conv takes flatten(x)"}
	for _, l := range layers {
		in := "planes"
		if l.In >= 0 {
			in = layers[l.In].Name
		}
		var e string
		if l.Kind == model.ConvBN {
			e = fmt.Sprintf("conv%dx%d(%s, %s)", l.K, l.K, l.Name, in)
		} else {
			if l.In >= 0 && layers[l.In].Kind == model.ConvBN {
				in = "flatten(" + in + ")"
			}
			e = fmt.Sprintf("dense(%s, %s)", l.Name, in)
		}
		if l.Residual >= 0 {
			e += " + " + layers[l.Residual].Name
		}
		if l.ReLU {
			e = "relu(" + e + ")"
		}
		switch l.Output {
		case model.PolicyOutput:
			e = "policy = " + e + "  (1024 logits)"
		case model.WDLOutput:
			e = "wdl = softmax(" + e + ")"
		default:
			e = l.Name + " = " + e
		}
		steps = append(steps, e)
	}
	return append(steps, "flatten takes [channels, 8, 4] in channel-major order: index channel*32 + row*4 + column")
}

// toJSON returns the JSON export of n with extra metadata appended.
func toJSON(n *Net, extra []KV) (*jsonFile, error) {
	if err := n.Check(); err != nil {
		return nil, err
	}
	c := n.Config
	f := &jsonFile{
		Format:  jsonFormat,
		Version: jsonVersion,
		Config: jsonConfig{Name: c.Name, Blocks: c.Blocks, Filters: c.Filters,
			PolicyFilters: c.PolicyFilters, ValueFilters: c.ValueFilters, ValueHidden: c.ValueHidden},
		Encoding: jsonEncoding{
			Rows: model.Rows, Cols: model.Cols, Planes: planeNames, InputLayout: "NHWC",
			Board:        "side to move's frame (for Black: square s -> 33-s, colours swapped); square s at row (s-1)/4, column (s-1)%4",
			PolicySize:   model.PolicySize,
			PolicyIndex:  "(from-1)*32 + (to-1), from and to in the side to move's frame",
			PolicyOutput: "logits; softmax over the legal moves' indices only",
			WDL:          []string{"win", "draw", "loss"},
			WDLOutput:    "softmax of the value head's 3 logits, for the side to move",
		},
		Forward:  forwardSteps(c),
		Metadata: map[string]string{},
	}
	for _, kv := range append(metadata(n), extra...) {
		f.Metadata[kv.Key] = kv.Value
	}
	for _, l := range n.Layers {
		shape := []int{l.Cin, l.Cout}
		if l.Kind == model.ConvBN {
			shape = []int{l.Cout, l.Cin, l.K, l.K}
		}
		f.Layers = append(f.Layers, jsonLayer{Name: l.Name, Type: l.Kind.String(), Shape: shape, Weight: l.W, Bias: l.B})
	}
	return f, nil
}

// writeJSON writes the JSON export of n to w: the header indented, then
// one line per layer.
func writeJSON(w io.Writer, n *Net, extra []KV) error {
	f, err := toJSON(n, extra)
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
	return atomicfile.Write(path, func(w io.Writer) error { return writeJSON(w, n, extra) })
}

// ReadJSON reads a JSON export back into a Net, checking the format, the
// version, the layer names, types and shapes.
func ReadJSON(r io.Reader) (*Net, error) {
	var f jsonFile
	dec := json.NewDecoder(r)
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("export: JSON: %w", err)
	}
	if f.Format != jsonFormat {
		return nil, fmt.Errorf("export: JSON field format is %q, want %q", f.Format, jsonFormat)
	}
	if f.Version != jsonVersion {
		return nil, fmt.Errorf("export: JSON version %d not supported (this reader knows %d)", f.Version, jsonVersion)
	}
	c := f.Config
	n := &Net{Config: model.Config{Name: c.Name, Blocks: c.Blocks, Filters: c.Filters,
		PolicyFilters: c.PolicyFilters, ValueFilters: c.ValueFilters, ValueHidden: c.ValueHidden}}
	if err := n.Config.Validate(); err != nil {
		return nil, fmt.Errorf("export: JSON config: %w", err)
	}
	spec := model.Spec(n.Config)
	if len(f.Layers) != len(spec) {
		return nil, fmt.Errorf("export: JSON has %d layers, config with %d blocks needs %d", len(f.Layers), c.Blocks, len(spec))
	}
	for i, s := range spec {
		l := &f.Layers[i]
		if l.Name != s.Name || l.Type != s.Kind.String() {
			return nil, fmt.Errorf("export: JSON layer %d is %s %q, want %s %q", i, l.Type, l.Name, s.Kind, s.Name)
		}
		want := []int{s.Cin, s.Cout}
		if s.Kind == model.ConvBN {
			want = []int{s.Cout, s.Cin, s.K, s.K}
		}
		if fmt.Sprint(l.Shape) != fmt.Sprint(want) {
			return nil, fmt.Errorf("export: JSON layer %s has shape %v, want %v", s.Name, l.Shape, want)
		}
		n.Layers = append(n.Layers, model.FoldedLayer{Layer: s, W: l.Weight, B: l.Bias})
	}
	if err := n.Check(); err != nil {
		return nil, err
	}
	return n, nil
}
