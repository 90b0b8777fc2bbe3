package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"dama/runfolder"
	"dama/selfplay"
	"dama/train"
)

func init() {
	var runDir *string
	register(&command{
		name:      "games",
		summary:   "check self-play game chunks as the trainer does",
		usage:     "check FILE|DIR [--run DIR]",
		takesArgs: true,
		verbs:     []string{"check"},
		flags: func(fs *flagSet) {
			runDir = fs.String("run", "", "check against this run folder's configuration, accepted models and games, as its trainer would (without: format, legality and results only)")
		},
		run: func(e *env, fs *flag.FlagSet, args []string) error {
			if len(args) == 0 || args[0] != "check" {
				return fmt.Errorf("want the verb check (usage: dama games check FILE|DIR [--run DIR])")
			}
			if len(args) != 2 {
				return fmt.Errorf("check: want one chunk file or folder, got %d arguments", len(args)-1)
			}
			return gamesCheck(e, args[1], *runDir)
		},
	})
}

// gamesCheck runs the trainer's validation (selfplay.Checker) on the chunk
// file path, or on every games file of the folder path (in name order), and prints one
// line: a file's problem is the error; a folder is checked through, with a
// line for each chunk that fails and the count as the error.
func gamesCheck(e *env, path, runDir string) error {
	check := &selfplay.Checker{}
	against := "format, legality and results"
	if runDir != "" {
		run := &runfolder.Run{Dir: runDir} // read, never created
		data, err := os.ReadFile(run.Path(runfolder.ConfigFile))
		if err != nil {
			return fmt.Errorf("--run %s: %w", runDir, err)
		}
		cfg, err := run.ReadArchivedConfig(data)
		if err != nil {
			return err
		}
		check = selfplay.RunChecker(cfg.SelfPlay, run.SelfPlayHistory, run.Path(runfolder.AcceptedDir))
		if check.Held, err = train.PlannedGames(run); err != nil {
			return err
		}
		against = "run " + runDir
	}
	files := []string{path}
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if st.IsDir() {
		if files, err = filepath.Glob(filepath.Join(path, "*"+selfplay.FileExt)); err != nil {
			return err
		}
		if len(files) == 0 {
			return fmt.Errorf("check: no game files (*%s) in %s", selfplay.FileExt, path)
		}
	}
	games, plies, failed := 0, 0, 0
	for _, f := range files {
		_, gs, err := check.CheckFile(f)
		if err != nil {
			if !st.IsDir() {
				return err
			}
			// A folder is checked through: one line per chunk that fails.
			failed++
			fmt.Fprintf(e.stdout, "%s: %s\n", filepath.Base(f), oneLine(err))
			continue
		}
		if check.Held != nil {
			check.Held.Add(filepath.Base(f), selfplay.IDs(gs)) // a later file may not repeat it
		}
		games += len(gs)
		for _, g := range gs {
			plies += len(g.Plies)
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d chunks fail the trainer's check (%s), listed above; the other %d chunks (%d games, %d positions) pass",
			failed, len(files), against, len(files)-failed, games, plies)
	}
	fmt.Fprintf(e.stdout, "%d chunks, %d games, %d positions: all pass the trainer's check (%s)\n", len(files), games, plies, against)
	return nil
}
