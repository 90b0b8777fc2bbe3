package card

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"dama/arena"
	"dama/checkpoints"
	"dama/model"
	"dama/model/export"
)

// ShipOptions say what Ship ships and how it rates the model.
type ShipOptions struct {
	Model    string // the checkpoint file to ship
	Run      string // the run folder that trained it (RunPiece)
	Out      string // the folder written
	Revision string // the project revision that ships it, in the record
	Producer string // the producer the ONNX export names
	// Player makes the player of the checkpoint shipped as the ladder and
	// the match play it: a search of Visits visits a move, passing forced
	// moves with PassForced (as the record says).
	Player     func(*model.Checkpoint) (arena.Player, error)
	Visits     int
	PassForced bool
	Ladder     int          // games on the default ladder; 0: no rating
	Opponent   arena.Player // a reference player for a direct match; nil: none
	MatchGames int          // games of the direct match
	Parallel   int          // games played at once
	Log        io.Writer    // the ladder's table, the match's result and the files written
}

// Ship ships the checkpoint opt.Model, trained in opt.Run, into opt.Out:
// the checkpoint without its optimizer state and its ONNX export, rated on
// the default ladder and in a match as opt says, with the record (the
// lineage of the record already there, NewRecord) and the card. The four
// files are staged before any game and written all or none (Stage). It
// returns the size of the checkpoint written.
func Ship(ctx context.Context, opt ShipOptions) (int, error) {
	ck, err := model.Load(opt.Model)
	if err != nil {
		return 0, err
	}
	piece, err := RunPiece(opt.Run, opt.Model)
	if err != nil {
		return 0, err
	}
	// The lineage: a run started from the model shipped before adds to it.
	rec, err := NewRecord(opt.Out, piece)
	if err != nil {
		return 0, err
	}

	// The model without its optimizer state, and its ONNX export. A run continued from it (dama train --init) keeps
	// the checkpoint's step, so its learning-rate schedule goes on without
	// a second warm-up, and restarts Adam's moments (re-estimated within a
	// few hundred steps); the workstation network's two moments would make
	// the file 12 MB, over the repository's 10 MB a file.
	slim := *ck
	slim.Opt = model.OptimizerState{}
	slim.Meta.Note = fmt.Sprintf("shipped from %s: %s", opt.Model, ck.Meta.Note)
	data, err := slim.Marshal()
	if err != nil {
		return 0, err
	}
	rec.SetModel(ck, data, opt.Revision)
	net, meta, err := export.FoldCheckpoint(&slim, checkpoints.ModelFile)
	if err != nil {
		return 0, err
	}
	var onnx bytes.Buffer
	if err := export.WriteONNX(&onnx, net, export.Options{Producer: opt.Producer, Metadata: meta}); err != nil {
		return 0, err
	}
	// The four files are written together, after the ladder and the
	// match: staged now (so that a folder that takes no file fails before
	// any game), renamed into place at the end, all or none.
	files, err := Stage(opt.Out, data, onnx.Bytes())
	if err != nil {
		return 0, err
	}
	defer files.Abort()

	if opt.Ladder > 0 {
		l, err := arena.DefaultLadder()
		if err != nil {
			return 0, err
		}
		p, err := opt.Player(&slim)
		if err != nil {
			return 0, err
		}
		res, err := arena.Climb(ctx, p, l, arena.ParsePlayer, arena.LadderOptions{Games: opt.Ladder, ProbePairs: 2, Parallel: opt.Parallel})
		arena.Close(p)
		if err != nil {
			return 0, err
		}
		res.WriteTable(opt.Log)
		rec.Ladder = &Ladder{Checksum: l.Checksum[:12], Visits: opt.Visits, PassForced: opt.PassForced, Result: res}
		rec.AddRating(piece.Run)
	}
	if opt.Opponent != nil {
		p, err := opt.Player(&slim)
		if err != nil {
			return 0, err
		}
		res, err := arena.Match(ctx, p, opt.Opponent, arena.MatchOptions{Games: opt.MatchGames, Parallel: opt.Parallel, Seed: 1})
		arena.Close(p)
		if err != nil {
			return 0, err
		}
		rec.Match = res.String()
		fmt.Fprintln(opt.Log, rec.Match)
	}
	if err := files.Commit(rec); err != nil {
		return 0, err
	}
	fmt.Fprintf(opt.Log, "wrote %s (%d bytes), %s, %s and %s\n", filepath.Join(opt.Out, checkpoints.ModelFile), len(data),
		filepath.Join(opt.Out, checkpoints.ONNXFile), filepath.Join(opt.Out, checkpoints.CardFile), checkpoints.RecordFile)
	return len(data), nil
}

// Check checks the options as a command line gives them, before any
// work: the ladder's games and the match's even (each opening played with
// both colours), the revision one word.
func (opt ShipOptions) Check() error {
	switch {
	case opt.Ladder < 0 || opt.Ladder%2 != 0:
		return fmt.Errorf("--ladder-games %d: want an even number >= 0", opt.Ladder)
	case opt.Opponent != nil && (opt.MatchGames < 2 || opt.MatchGames%2 != 0):
		return fmt.Errorf("--match-games %d: want an even number >= 2", opt.MatchGames)
	case strings.ContainsAny(opt.Revision, " \t\n"):
		return fmt.Errorf("--revision %q: want one word (a commit or a version)", opt.Revision)
	}
	return nil
}
