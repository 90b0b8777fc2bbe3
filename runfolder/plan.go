package runfolder

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ChunkInfo is what the trainer knows of one games file.
type ChunkInfo struct {
	Name      string `json:"name"` // file name in games/
	Games     int    `json:"games"`
	Positions int    `json:"positions"` // training samples it gives
}

// Plan is generations/NNNN.plan.json: the chunks a generation consumes as
// new data, fixed before its training starts so that a restart trains on
// the same data and no chunk is consumed twice.
type Plan struct {
	Gen    int         `json:"gen"`
	Chunks []ChunkInfo `json:"chunks"`
}

// planFile names generation gen's plan in GenerationsDir.
func planFile(gen int) string { return fmt.Sprintf("%04d.plan.json", gen) }

// recordFile names generation gen's final record in GenerationsDir.
func recordFile(gen int) string { return fmt.Sprintf("%04d.json", gen) }

// ReadPlan reads generation gen's plan; nil when it has none yet.
func (r *Run) ReadPlan(gen int) (*Plan, error) {
	var p Plan
	err := readJSON(r.Path(GenerationsDir, planFile(gen)), &p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &p, nil
}

// WritePlan writes p as its generation's plan, atomically.
func (r *Run) WritePlan(p *Plan) error {
	return writeJSON(r.Path(GenerationsDir, planFile(p.Gen)), p)
}

// Plans reads the plans of generations 1..upto that exist.
func (r *Run) Plans(upto int) ([]Plan, error) {
	var out []Plan
	for g := 1; g <= upto; g++ {
		p, err := r.ReadPlan(g)
		if err != nil {
			return nil, err
		}
		if p != nil {
			out = append(out, *p)
		}
	}
	return out, nil
}

// ReadRecord reads generation gen's final record.
func (r *Run) ReadRecord(gen int) (*GenerationRecord, error) {
	var g GenerationRecord
	if err := readJSON(r.Path(GenerationsDir, recordFile(gen)), &g); err != nil {
		return nil, err
	}
	return &g, nil
}

// WriteRecord writes rec as its generation's final record, atomically;
// its presence marks the generation complete.
func (r *Run) WriteRecord(rec *GenerationRecord) error {
	return writeJSON(r.Path(GenerationsDir, recordFile(rec.Gen)), rec)
}

// ConsumedChunks returns the names of the chunk files that the run's
// generation plans consume: games that are trained on, or will be on a
// resume, and must never be taken again. A transport that delivers chunks
// from other machines uses it to recognise a chunk delivered twice.
func (r *Run) ConsumedChunks() (map[string]bool, error) {
	paths, err := filepath.Glob(r.Path(GenerationsDir, "*.plan.json"))
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, path := range paths {
		var p Plan
		if err := readJSON(path, &p); err != nil {
			return nil, err
		}
		for _, c := range p.Chunks {
			out[c.Name] = true
		}
	}
	return out, nil
}

// readJSON decodes the JSON file at path into v; a decoding error names the
// file (the os package's errors name it already).
func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("runfolder: %s: %w", path, err)
	}
	return nil
}

// writeJSON writes v, indented, to path under a temporary name renamed into
// place.
func writeJSON(path string, v any) error {
	b, _ := json.MarshalIndent(v, "", "  ")
	return WriteFileAtomic(path, b)
}
