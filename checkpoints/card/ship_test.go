package card

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dama/arena"
	"dama/checkpoints"
	"dama/model"
	"dama/runfolder"
)

// TestShip ships a run's candidate with a match: the checkpoint written
// notes where it was shipped from, the record holds the match, which the
// log shows; a folder that cannot take the card fails before any game.
func TestShip(t *testing.T) {
	cfg, err := model.Preset("tiny")
	if err != nil {
		t.Fatal(err)
	}
	ck := &model.Checkpoint{Net: model.NewSeededNetwork(cfg, 3), Step: 43}
	run := sampleRun(t, "")
	path := filepath.Join(run, "rejected", "0001.ckpt")
	if err := ck.Save(path); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "shipped")
	var log bytes.Buffer
	played := 0
	opp, err := arena.ParsePlayer("random")
	if err != nil {
		t.Fatal(err)
	}
	opt := ShipOptions{Model: path, Run: run, Out: out, Revision: "r1", Producer: "test", Visits: 2,
		Player: func(c *model.Checkpoint) (arena.Player, error) {
			played++
			if c.Opt.Kind != "" || c.Step != 43 {
				t.Errorf("the player's checkpoint has optimizer %q, step %d", c.Opt.Kind, c.Step)
			}
			return arena.ParsePlayer("alphabeta:1")
		},
		Opponent: opp, MatchGames: 2, Parallel: 1, Log: &log}
	size, err := Ship(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	shipped, err := model.Load(filepath.Join(out, checkpoints.ModelFile))
	if err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(filepath.Join(out, checkpoints.ModelFile))
	if shipped.Opt.Kind != "" || !strings.HasPrefix(shipped.Meta.Note, "shipped from "+path) || st == nil || st.Size() != int64(size) {
		t.Errorf("shipped checkpoint: optimizer %q, note %q, %v bytes (Ship said %d)", shipped.Opt.Kind, shipped.Meta.Note, st, size)
	}
	rec, err := ReadRecord(filepath.Join(out, checkpoints.RecordFile))
	if err != nil {
		t.Fatal(err)
	}
	wrote := fmt.Sprintf("wrote %s (%d bytes), %s, %s and %s\n", filepath.Join(out, checkpoints.ModelFile), size,
		filepath.Join(out, checkpoints.ONNXFile), filepath.Join(out, checkpoints.CardFile), checkpoints.RecordFile)
	if played != 1 || rec.Match == "" || rec.Ladder != nil || rec.Revision != "r1" || log.String() != rec.Match+"\n"+wrote {
		t.Errorf("played %d, record match %q, ladder %v, revision %q, log %q", played, rec.Match, rec.Ladder, rec.Revision, log.String())
	}
	if _, err := os.Stat(filepath.Join(out, checkpoints.ONNXFile)); err != nil {
		t.Error(err)
	}
	// All or nothing, before any game: a folder where the card goes.
	blocked := filepath.Join(t.TempDir(), "blocked")
	if err := os.MkdirAll(filepath.Join(blocked, checkpoints.CardFile, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	opt.Out, played = blocked, 0
	if _, err := Ship(context.Background(), opt); err == nil || played != 0 {
		t.Errorf("ship into a folder with a folder at the card: err %v, %d players made", err, played)
	}
	if ents, _ := os.ReadDir(blocked); len(ents) != 1 {
		t.Errorf("the failed ship left %d entries", len(ents))
	}
}

// Check refuses odd game counts and a revision of more than one word,
// naming the flag; ModelOfRun takes the run's best without a model, and
// refuses a model the run did not train.
func TestShipOptionsCheckAndModelOfRun(t *testing.T) {
	opp, err := arena.ParsePlayer("random")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		opt  ShipOptions
		want string
	}{
		{ShipOptions{Ladder: 200, Revision: "r1"}, ""},
		{ShipOptions{Ladder: 0, Opponent: opp, MatchGames: 2}, ""},
		{ShipOptions{Ladder: 3}, "--ladder-games 3: want an even number >= 0"},
		{ShipOptions{Ladder: -2}, "--ladder-games -2"},
		{ShipOptions{Opponent: opp, MatchGames: 1}, "--match-games 1: want an even number >= 2"},
		{ShipOptions{MatchGames: 1}, ""}, // no match
		{ShipOptions{Revision: "a b"}, `--revision "a b": want one word`},
	} {
		err := c.opt.Check()
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.HasPrefix(err.Error(), c.want)) {
			t.Errorf("%+v: got %v, want %q", c.opt, err, c.want)
		}
	}
	cfg, err := model.Preset("tiny")
	if err != nil {
		t.Fatal(err)
	}
	run := sampleRun(t, "")
	if err := os.MkdirAll(filepath.Join(run, "accepted"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := (&model.Checkpoint{Net: model.NewSeededNetwork(cfg, 3)}).Save(filepath.Join(run, "accepted", "0000.ckpt")); err != nil {
		t.Fatal(err)
	}
	best, err := runfolder.ResolveModel(run)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := ModelOfRun("", run); err != nil || got != best {
		t.Errorf("ModelOfRun(\"\") = %q, %v; want the run's best %q", got, err, best)
	}
	if got, err := ModelOfRun(best, run); err != nil || got != best {
		t.Errorf("ModelOfRun(best) = %q, %v", got, err)
	}
	stranger := filepath.Join(t.TempDir(), "x.ckpt")
	if err := (&model.Checkpoint{Net: model.NewSeededNetwork(cfg, 9)}).Save(stranger); err != nil {
		t.Fatal(err)
	}
	if _, err := ModelOfRun(stranger, run); err == nil || !strings.HasPrefix(err.Error(), "--model "+stranger+": not a model of run") {
		t.Errorf("a stranger's model: got %v", err)
	}
}
