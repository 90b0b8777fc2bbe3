package checkpoints

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"dama/model"
)

// TestShipped checks the model built into the binary against its card:
// it loads, carries no optimizer state, and is the file model.json names.
func TestShipped(t *testing.T) {
	ck, err := Shipped()
	if errors.Is(err, ErrNoModel) {
		if strings.Contains(Card(), "| network |") {
			t.Fatal("the card describes a model but none is shipped")
		}
		t.Skip("no model shipped")
	}
	if err != nil {
		t.Fatal(err)
	}
	if ck.Opt.Kind != "" || len(ck.Opt.Slots) != 0 {
		t.Errorf("the shipped model keeps optimizer state %q", ck.Opt.Kind)
	}
	if ck.Version != model.FormatVersion {
		t.Errorf("the shipped model is format version %d, want %d (every dama reads it)", ck.Version, model.FormatVersion)
	}
	b, err := shipped.ReadFile("shipped/" + ModelFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 10<<20 {
		t.Errorf("%s is %d bytes, over 10 MB", ModelFile, len(b))
	}
	js, err := shipped.ReadFile("shipped/model.json")
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		ModelSHA string `json:"model_sha256"`
	}
	if err := json.Unmarshal(js, &rec); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	if got := hex.EncodeToString(sum[:]); got != rec.ModelSHA {
		t.Errorf("model.json names %s, the shipped file is %s", rec.ModelSHA, got)
	}
	if !strings.Contains(Card(), rec.ModelSHA) {
		t.Error("the card does not name the shipped file's digest")
	}
}
