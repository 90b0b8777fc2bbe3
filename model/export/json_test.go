package export

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"dama/model"
)

func TestJSONRoundTrip(t *testing.T) {
	folded, err := Fold(testNetwork(t, 4))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := writeJSON(&buf, folded, []KV{{"dama.source", "test.ckpt"}}); err != nil {
		t.Fatal(err)
	}
	back, err := ReadJSON(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, folded) {
		t.Fatal("network read back from JSON differs from the one written")
	}
	// The forward pass recomputed from the file gives the same outputs.
	const batch = 8
	_, input := testPositions(batch, 5)
	p1, v1 := make([]float32, batch*model.PolicySize), make([]float32, batch*3)
	p2, v2 := make([]float32, batch*model.PolicySize), make([]float32, batch*3)
	folded.Forward(input, batch, p1, v1)
	back.Forward(input, batch, p2, v2)
	if !reflect.DeepEqual(p1, p2) || !reflect.DeepEqual(v1, v2) {
		t.Fatal("forward pass from the JSON file differs")
	}
	var f map[string]any
	if err := json.Unmarshal(buf.Bytes(), &f); err != nil {
		t.Fatal(err)
	}
	meta := f["metadata"].(map[string]any)
	if meta["dama.source"] != "test.ckpt" || meta["dama.policy"] == nil {
		t.Errorf("metadata %v lacks the source or the policy description", meta)
	}
	enc := f["encoding"].(map[string]any)
	if got := enc["wdl"]; !reflect.DeepEqual(got, []any{"win", "draw", "loss"}) {
		t.Errorf("encoding.wdl = %v", got)
	}
	if got := len(enc["planes"].([]any)); got != model.NumPlanes {
		t.Errorf("%d plane names, want %d", got, model.NumPlanes)
	}
}

func TestReadJSONErrors(t *testing.T) {
	folded, err := Fold(testNetwork(t, 4))
	if err != nil {
		t.Fatal(err)
	}
	good, err := toJSON(folded, nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		change func(f *jsonFile)
		want   string
	}{
		{"format", func(f *jsonFile) { f.Format = "other" }, "format"},
		{"version", func(f *jsonFile) { f.Version = 2 }, "version 2"},
		{"config", func(f *jsonFile) { f.Config.Filters = 0 }, "Filters"},
		{"layer count", func(f *jsonFile) { f.Layers = f.Layers[:3] }, "layers"},
		{"layer name", func(f *jsonFile) { f.Layers[1].Name = "block9/conv1" }, "block0/conv1"},
		{"shape", func(f *jsonFile) { f.Layers[0].Shape = []int{16, 9, 3} }, "shape"},
		{"weights", func(f *jsonFile) { f.Layers[2].Weight = f.Layers[2].Weight[1:] }, "block0/conv2"},
		{"dense shape", func(f *jsonFile) { f.Layers[len(f.Layers)-1].Shape = []int{32, 4} }, "value/dense2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Deep copy through JSON, then change.
			b, _ := json.Marshal(good)
			var f jsonFile
			if err := json.Unmarshal(b, &f); err != nil {
				t.Fatal(err)
			}
			tc.change(&f)
			b, _ = json.Marshal(&f)
			_, err := ReadJSON(bytes.NewReader(b))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ReadJSON error %v, want one mentioning %q", err, tc.want)
			}
		})
	}
	if _, err := ReadJSON(strings.NewReader(`{"format": "dama-net-json", "version": `)); err == nil {
		t.Error("ReadJSON accepted truncated input")
	}
}
