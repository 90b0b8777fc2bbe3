package train

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"dama/runfolder"
	"dama/selfplay"
)

// CheckGames runs the trainer's check (selfplay.Checker) on the chunk
// file path, or on every games file of the folder path in name order,
// and writes one line to w: a file's problem is the error; a folder is
// checked through, with a line for each chunk that fails and their count
// as the error. With runDir it checks as that run's trainer would (its
// configuration, accepted models and the games its plans took), reading
// the run folder and writing nothing there; without, the format, the
// legality and the results only.
func CheckGames(w io.Writer, path, runDir string) error {
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
		if check.Held, err = PlannedGames(run); err != nil {
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
			fmt.Fprintf(w, "%s: %s\n", filepath.Base(f), strings.Join(strings.Fields(err.Error()), " "))
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
	fmt.Fprintf(w, "%d chunks, %d games, %d positions: all pass the trainer's check (%s)\n", len(files), games, plies, against)
	return nil
}
