package export

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"dama/model"
)

// The exports ignore the training-only reply head: ONNX and JSON files of a
// network with it are byte for byte those of the same weights without it.
func TestExportIgnoresAuxReply(t *testing.T) {
	cfg, _ := model.Preset("tiny")
	cfg.AuxReply = true
	net := testNetworkConfig(t, cfg, 9)
	plain := &model.Network{Config: cfg}
	plain.Config.AuxReply = false
	for _, tt := range net.Tensors {
		if !strings.HasPrefix(tt.Name, "reply/") {
			plain.Tensors = append(plain.Tensors, tt)
		}
	}
	if len(plain.Tensors) == len(net.Tensors) {
		t.Fatal("the network has no reply head tensors")
	}
	a, err := Fold(net)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Fold(plain)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatal("folded export differs with the reply head")
	}
	for _, w := range []func(*bytes.Buffer, *Net) error{
		func(buf *bytes.Buffer, n *Net) error { return writeONNX(buf, n, Options{}) },
		func(buf *bytes.Buffer, n *Net) error { return writeJSON(buf, n, nil) },
	} {
		var x, y bytes.Buffer
		if err := w(&x, a); err != nil {
			t.Fatal(err)
		}
		if err := w(&y, b); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(x.Bytes(), y.Bytes()) || bytes.Contains(x.Bytes(), []byte("reply")) {
			t.Error("exported file differs with the reply head")
		}
	}
}
