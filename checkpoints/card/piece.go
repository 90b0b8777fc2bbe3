package card

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"dama/configs"
	"dama/report"
	"dama/runfolder"
)

// CheckModelOfRun checks that the checkpoint file path was trained in the
// run folder runDir: a checkpoint in its candidates/, accepted/ or
// rejected/ has the same content. The card's games, positions and CPU
// time come from the run's records, so they must be the model's.
func CheckModelOfRun(path, runDir string) error {
	want, err := fileSum(path)
	if err != nil {
		return err
	}
	dirs := []string{runfolder.CandidatesDir, runfolder.AcceptedDir, runfolder.RejectedDir}
	for _, d := range dirs {
		files, _ := filepath.Glob(filepath.Join(runDir, d, "*.ckpt"))
		for _, f := range files {
			if got, err := fileSum(f); err == nil && got == want {
				return nil
			}
		}
	}
	return fmt.Errorf("not a model of run %s: no checkpoint in its %s/, %s/ or %s/ has the same content (ship a model with the run that trained it)", runDir, dirs[0], dirs[1], dirs[2])
}

// ModelOfRun returns the checkpoint file that model names
// (runfolder.ResolveModel: a file, or a run folder's best), checked to be
// one the run folder runDir trained (CheckModelOfRun); "" names the run's
// best model.
func ModelOfRun(model, runDir string) (string, error) {
	if model == "" {
		return runfolder.ResolveModel(runDir)
	}
	path, err := runfolder.ResolveModel(model)
	if err != nil {
		return "", err
	}
	if err := CheckModelOfRun(path, runDir); err != nil {
		return "", fmt.Errorf("--model %s: %w", model, err)
	}
	return path, nil
}

// RunPiece sums the generation records of the run folder dir up to the
// generation that trained the checkpoint at modelPath: the piece of the
// lineage that run is. Its configuration's run.name and the model it
// started from (dama train --init) are taken from the folder where it
// has them. A run without a completed generation, or a model no
// generation trained (the run's initial model), is an error.
func RunPiece(dir, modelPath string) (Piece, error) {
	run := &runfolder.Run{Dir: dir}
	rep, err := report.Load(run)
	if err != nil {
		return Piece{}, err
	}
	if len(rep.Generations) == 0 {
		return Piece{}, fmt.Errorf("run %s has no completed generation", dir)
	}
	abs, _ := filepath.Abs(dir)
	n := modelGeneration(dir, modelPath, rep.Generations)
	if n == 0 {
		return Piece{}, fmt.Errorf("%s is no candidate of a generation of run %s (its initial model?): no generation trained it, so there is nothing to ship", modelPath, dir)
	}
	gens := rep.Generations[:n]
	p := Piece{Run: filepath.Base(abs), Generations: len(gens), RunGenerations: len(rep.Generations)}
	if p.RunGenerations == p.Generations {
		p.RunGenerations = 0
	}
	for _, g := range gens {
		p.Games += g.Games
		p.Positions += int64(g.Positions)
		p.CPUHours += g.CPUSec / 3600
		p.WallHours += (g.SelfPlaySec + g.TrainSec + g.ArenaSec) / 3600
	}
	cfg, err := configs.Load(run.Path(runfolder.ConfigFile), nil, nil)
	if err == nil {
		p.Config = cfg.Run.Name
	}
	changes, err := run.ReadChanges()
	if err != nil {
		return Piece{}, err
	}
	for _, c := range changes {
		if c.Generation > n {
			break
		}
		var kv []string
		for _, d := range c.Changes {
			kv = append(kv, d.Key+"="+d.New)
		}
		line := fmt.Sprintf("generation %d, --allow-change: %s", c.Generation, strings.Join(kv, ", "))
		if c.Phase > 0 {
			line = fmt.Sprintf("generation %d, schedule phase %d: %s", c.Generation, c.Phase, strings.Join(kv, ", "))
			if cfg != nil && c.Phase <= len(cfg.Schedule) && cfg.Schedule[c.Phase-1].Note != "" {
				line += " (" + cfg.Schedule[c.Phase-1].Note + ")"
			}
		}
		p.Recipe = append(p.Recipe, line)
	}
	if b, err := os.ReadFile(run.Path(runfolder.InitFile)); err == nil {
		p.InitSHA, _, _ = strings.Cut(strings.TrimSpace(string(b)), " ")
	}
	return p, nil
}

// modelGeneration returns how many of a run's generations (gens, in
// order) trained the checkpoint at modelPath: those up to the one whose
// candidate it is (by content, so a copy elsewhere counts). The
// generations after it went on from it but are not in the shipped
// network. 0: it is no generation's candidate.
func modelGeneration(runDir, modelPath string, gens []report.GenerationRow) int {
	want, err := fileSum(modelPath)
	if err != nil {
		return 0
	}
	for i := len(gens) - 1; i >= 0; i-- {
		if got, err := fileSum(filepath.Join(runDir, filepath.FromSlash(gens[i].Candidate))); err == nil && got == want {
			return i + 1
		}
	}
	return 0
}

// fileSum returns the SHA-256 of the file at path.
func fileSum(path string) ([sha256.Size]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return [sha256.Size]byte{}, err
	}
	return sha256.Sum256(b), nil
}
