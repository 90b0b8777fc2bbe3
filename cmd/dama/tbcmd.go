package main

import (
	"context"
	"flag"
	"fmt"
	"runtime"
	"time"

	"dama/arena"
	"dama/internal/progress"
	"dama/player"
	"dama/rules"
	"dama/tb"
)

func init() {
	var pieces, workers, quiet, visits, games *int
	var threads int
	var seed *int64
	var out, dir, fen, modelPath *string
	register(&command{
		name:      "tb",
		summary:   "endgame tables: generate, probe a position, list and check, verify every entry, play won endings with and without them",
		usage:     "gen [--pieces N] --out DIR | probe --dir DIR --fen FEN [--quiet-plies N] | info DIR | verify [--threads N] DIR | match --dir DIR [--pieces N] [--games N] [--model CKPT] [--visits N]",
		takesArgs: true,
		verbs:     []string{"gen", "probe", "info", "verify", "match"},
		flags: func(fs *flagSet) {
			pieces = fs.Int("pieces", 4, "gen: every signature of 2 to this many pieces (2..8)")
			limit(fs, "pieces", 2, 8, "")
			out = fs.String("out", "", "gen: the folder of the tables (created; finished signatures in it are kept)")
			workers = fs.Int("parallel", 0, "gen: signatures solved at once, and the threads of the verification that follows (0: one per CPU)")
			limit(fs, "parallel", 0, 256, "0: one per CPU")
			fs.IntVar(&threads, "threads", 0, "verify: goroutines checking entries, one core each (0: one per CPU)")
			limit(fs, "threads", 0, 256, "0: one per CPU")
			dir = fs.String("dir", "", "probe: the folder of the tables")
			fen = fs.String("fen", "", "probe: the position in PDN FEN form")
			quiet = fs.Int("quiet-plies", 0, "probe: the 40-move counter, plies of king moves since the last man move or capture (0..80)")
			limit(fs, "quiet-plies", 0, rules.QuietLimit, "")
			modelPath = fs.String("model", player.Shipped, "match: the checkpoint that plays (default: the shipped model)")
			visits = fs.Int("visits", 200, "match: MCTS visits per move (1..10^6)")
			limit(fs, "visits", 1, player.MaxVisits, "")
			games = fs.Int("games", 20, "match: won positions played, each without and with the tables (1..10^5)")
			limit(fs, "games", 1, 1e5, "")
			seed = fs.Int64("seed", 1, "match: seed of the positions")
			fs.renamed("quiet", "quiet-plies") // --quiet is a switch elsewhere: no progress bar
			fs.renamed("workers", "parallel")  // things done at once are --parallel elsewhere
		},
		run: func(e *env, fs *flag.FlagSet, args []string) error {
			const usage = "usage: dama tb gen --pieces N --out DIR | probe --dir DIR --fen FEN | info DIR | verify DIR | match --dir DIR"
			if len(args) == 0 {
				return fmt.Errorf("want a verb: gen, probe, info, verify or match (%s)", usage)
			}
			verb, rest := args[0], args[1:]
			switch verb {
			case "gen":
				if len(rest) > 0 || *out == "" {
					return fmt.Errorf("gen: want --out DIR and no arguments (%s)", usage)
				}
				return tbGen(e, *pieces, *workers, *out)
			case "probe":
				if len(rest) > 0 || *dir == "" || *fen == "" {
					return fmt.Errorf("probe: want --dir DIR and --fen FEN and no arguments (%s)", usage)
				}
				return tbProbe(e, *dir, *fen, *quiet)
			case "info":
				if len(rest) != 1 {
					return fmt.Errorf("info: want one folder, got %d arguments (%s)", len(rest), usage)
				}
				return tbInfo(e, rest[0])
			case "verify":
				if len(rest) != 1 {
					return fmt.Errorf("verify: want one folder, got %d arguments (%s)", len(rest), usage)
				}
				return tbVerify(e, rest[0], threads)
			case "match":
				if len(rest) > 0 || *dir == "" {
					return fmt.Errorf("match: want --dir DIR and no arguments (%s)", usage)
				}
				return tbMatch(e, *dir, *modelPath, *pieces, *games, *visits, *seed)
			}
			return fmt.Errorf("unknown verb %q (%s)", verb, usage)
		},
	})
}

// tbGen generates the tables, resuming in a folder that has some; an
// interrupt stops it between files.
func tbGen(e *env, pieces, workers int, out string) error {
	ctx, stop := e.interrupt()
	defer stop()
	start := time.Now()
	st, err := tb.Generate(ctx, tb.GenOptions{Pieces: pieces, Dir: out, Workers: workers, Log: e.stdout})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%d signatures of 2 to %d pieces in %s: %d already there, %d generated (%d positions, %d bytes) in %.1fs\n",
		st.Signatures, pieces, out, st.Skipped, st.Signatures-st.Skipped, st.Positions, st.Bytes, time.Since(start).Seconds())
	// Verified now, with a bar, rather than at the first open.
	return tbVerify(e, out, workers)
}

// tbVerify verifies every entry of the tables of dir against one ply of
// the tables (tb.VerifyDir, which records the verified ones in the
// folder's stamp) and prints what it found; an inconsistency is an error.
func tbVerify(e *env, dir string, threads int) error {
	ctx, stop := e.interrupt()
	defer stop()
	if threads <= 0 {
		threads = runtime.NumCPU()
	}
	var bar *progress.Bar
	start := time.Now()
	r, err := tb.VerifyDir(ctx, dir, tb.VerifyOptions{
		Threads: threads,
		Progress: func(done, total int64) {
			if bar == nil {
				bar = progress.New(e.stderr, int(total), "verifying "+dir)
			}
			bar.Set(int(done))
		},
	})
	bar.Finish()
	if err != nil && r.Entries == 0 {
		return err
	}
	r.WriteSummary(e.stdout, dir, threads, time.Since(start))
	if err != nil {
		return err
	}
	return r.Err()
}

// tbProbe prints the value of a position and the value of each move.
func tbProbe(e *env, dir, fen string, quiet int) error {
	p, err := rules.ParseFEN(fen)
	if err != nil {
		return err
	}
	t, err := tb.Open(dir)
	if err != nil {
		return err
	}
	if _, err := t.Probe(p); err != nil {
		return fmt.Errorf("%s: %w", fen, err)
	}
	return t.WriteMoves(e.stdout, p, quiet)
}

// tbInfo lists the tables of a folder, each checked.
func tbInfo(e *env, dir string) error {
	t, err := tb.Open(dir)
	if err != nil {
		return err
	}
	t.WriteInfo(e.stdout)
	return nil
}

// tbMatch plays won table positions of the given number of pieces with
// the model on both sides, once with the tables for the winning side and
// once without (arena.Endings), and prints each game that was not won and
// the totals.
func tbMatch(e *env, dir, modelPath string, pieces, games, visits int, seed int64) error {
	t, err := tb.Shared(dir)
	if err != nil {
		return err
	}
	if pieces > t.Pieces() {
		return fmt.Errorf("match: --pieces %d, the tables of %s go up to %d", pieces, dir, t.Pieces())
	}
	// The model's search, forced moves passed.
	s := player.Plain(visits)
	s.Pass = true
	spec := player.Spec{Model: modelPath, Search: s}
	n, err := spec.Open(player.Env{Cache: player.DefaultCache, Games: 1, Log: e.stderr})
	if err != nil {
		return err
	}
	defer n.Close()
	plain := &arena.MCTSPlayer{Label: spec.String(), Evaluator: n.Evaluator, Visits: visits, Options: n.Options}
	won, err := arena.Endings(context.Background(), t, plain, arena.EndingOptions{Pieces: pieces, Games: games, Seed: seed,
		Lost: func(g arena.EndingGame) { fmt.Fprintln(e.stdout, g) }})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%d won positions of %d pieces, %s at %d visits on both sides: won %d without the tables, %d with them\n", games, pieces, plain.Label, visits, won[0], won[1])
	return nil
}
