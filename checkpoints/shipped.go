// Package checkpoints holds the trained model that ships with dama
// (checkpoints/shipped: the network, its ONNX export and its model card),
// built into the binary so that the engines work without a --model. Run
// folders of dama train also live under checkpoints/ by default; they are
// not tracked.
package checkpoints

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"

	"dama/model"
)

// ShippedDir is the folder of the shipped model, relative to the
// repository root.
const ShippedDir = "checkpoints/shipped"

// Files of the shipped model in ShippedDir: the network, its ONNX export,
// its card and the record the card is written from (package
// checkpoints/card).
const (
	ModelFile  = "dama.ckpt"
	ONNXFile   = "dama.onnx"
	CardFile   = "MODEL.md"
	RecordFile = "model.json"
)

//go:embed shipped
var shipped embed.FS

// ErrNoModel is returned by Shipped when this build ships no model.
var ErrNoModel = errors.New("checkpoints: this build ships no trained model; give --model")

// Shipped returns the model built into the binary.
func Shipped() (*model.Checkpoint, error) {
	b, err := shipped.ReadFile("shipped/" + ModelFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNoModel
	}
	if err != nil {
		return nil, err
	}
	ck, err := model.Unmarshal(b)
	if err != nil {
		return nil, fmt.Errorf("checkpoints: the shipped model: %w", err)
	}
	return ck, nil
}

// Card returns the shipped model's card (Markdown).
func Card() string {
	b, _ := shipped.ReadFile("shipped/" + CardFile)
	return string(b)
}
