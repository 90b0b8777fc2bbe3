package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"dama/model"
	"dama/model/infer"
	"dama/runfolder"
)

func init() {
	var preset, out, note *string
	var seed *int64
	var backend, against, games *string
	var par *int
	register(&command{
		name:      "model",
		summary:   "create a network checkpoint, describe one, or compare two backends on it",
		usage:     "new --preset NAME --out FILE [--seed N] [--note TEXT] | info FILE | compare --chunks DIR [--backend B] [--against B] [--eval-batch N] FILE",
		takesArgs: true,
		verbs:     []string{"new", "info", "compare"},
		flags: func(fs *flagSet) {
			preset = fs.String("preset", "", "network size for new: "+strings.Join(model.PresetNames(), ", "))
			out = fs.String("out", "", "checkpoint file to write (new)")
			seed = fs.Int64("seed", 1, "random seed of the initial weights (new)")
			note = fs.String("note", "", "free-text note stored in the checkpoint (new)")
			backend = fs.String("backend", "bf16", "compare: the backend measured ("+strings.Join(infer.BackendNames(), ", ")+")")
			against = fs.String("against", infer.BackendFP32, "compare: the reference backend")
			games = fs.String("chunks", "", "compare: folder of self-play game chunks whose positions are evaluated")
			par = fs.Int("eval-batch", 32, "compare: positions per forward pass, 1..4096")
			limit(fs, "eval-batch", 1, 4096, "")
			fs.renamed("games", "chunks")        // --games is a count of games elsewhere
			fs.renamed("parallel", "eval-batch") // --parallel is games at once elsewhere
		},
		run: func(e *env, fs *flag.FlagSet, args []string) error {
			if len(args) == 0 {
				return fmt.Errorf("missing verb: new, info or compare (usage: dama model new --preset NAME --out FILE | dama model info FILE | dama model compare --chunks DIR FILE)")
			}
			verb, rest := args[0], args[1:]
			switch verb {
			case "new":
				if len(rest) > 0 {
					return fmt.Errorf("new: unexpected argument %q", rest[0])
				}
				return modelNew(e, *preset, *out, *seed, *note)
			case "info":
				if len(rest) != 1 {
					return fmt.Errorf("info: want exactly one checkpoint file, got %d arguments", len(rest))
				}
				return modelInfo(e, rest[0])
			case "compare":
				if len(rest) != 1 {
					return fmt.Errorf("compare: want exactly one checkpoint file, got %d arguments", len(rest))
				}
				if *games == "" {
					return fmt.Errorf("compare: --chunks DIR is required (a folder of self-play chunks)")
				}
				return modelCompare(e, rest[0], *games, *backend, *against, *par)
			}
			return fmt.Errorf("unknown verb %q (want new, info or compare)", verb)
		},
	})
}

// modelNew writes a freshly initialised checkpoint; the weights depend only
// on the preset and the seed.
func modelNew(e *env, preset, out string, seed int64, note string) error {
	if preset == "" {
		return fmt.Errorf("new: --preset is required (one of %s)", strings.Join(model.PresetNames(), ", "))
	}
	if out == "" {
		return fmt.Errorf("new: --out is required")
	}
	ck, err := model.NewFromPreset(preset, seed, note)
	if err != nil {
		return err
	}
	if err := ck.Save(out); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "wrote %s: %s, %d parameters, digest %s\n", out, ck.Net.Config, ck.Net.NumParams(), ck.Meta.ConfigDigest)
	return nil
}

// modelInfo prints a checkpoint's header.
func modelInfo(e *env, path string) error {
	path, err := runfolder.ResolveModel(path)
	if err != nil {
		return err
	}
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	ck, err := model.Load(path)
	if err != nil {
		return err
	}
	w := e.stdout
	fmt.Fprintf(w, "file        %s (%d bytes)\n", path, st.Size())
	ck.WriteInfo(w)
	auto, _ := infer.ResolveBackend(infer.BackendAuto)
	fmt.Fprintf(w, "backend     %s (auto on this CPU; available: %s)\n", auto, strings.Join(infer.AvailableBackends(), ", "))
	if ck.Meta.Note != "" {
		fmt.Fprintf(w, "note        %s\n", ck.Meta.Note)
	}
	return nil
}
