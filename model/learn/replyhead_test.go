package learn

import (
	"math/rand"
	"path/filepath"
	"testing"

	"dama/model"
)

// A checkpoint of format version 2 holds the opponent-reply head, removed
// since (docs/experiments.md#the-opponent-reply-head): it loads without the
// head and trains on as the network without it, as dama train --init from
// it does: a step, then a checkpoint of version 1 that loads back with the
// same shape, one step further.
func TestTrainFromReplyHeadCheckpoint(t *testing.T) {
	ck, err := model.Load(filepath.Join("..", "testdata", "sample-v2-aux.ckpt"))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := NewTrainer(ck, TrainOptions{Batch: 4})
	if err != nil {
		t.Fatalf("training from the version 2 sample: %v", err)
	}
	defer tr.Close()
	if _, err := tr.Step(randomSamples(rand.New(rand.NewSource(4)), 4)); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "next.ckpt")
	if err := tr.Checkpoint().Save(path); err != nil {
		t.Fatal(err)
	}
	back, err := model.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if back.Version != model.FormatVersion || back.Step != ck.Step+1 || back.Net.Config.Digest() != ck.Net.Config.Digest() || len(back.Net.Tensors) != len(ck.Net.Tensors) {
		t.Errorf("trained on: version %d step %d config %s with %d tensors, want version %d step %d config %s with %d",
			back.Version, back.Step, back.Net.Config, len(back.Net.Tensors), model.FormatVersion, ck.Step+1, ck.Net.Config, len(ck.Net.Tensors))
	}
}
