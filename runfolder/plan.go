package runfolder

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
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

// PlanPath is the path of generation gen's plan.
func (r *Run) PlanPath(gen int) string { return r.Path(GenerationsDir, planFile(gen)) }

// ReadPlan reads generation gen's plan, checked (Plan.check); nil when it
// has none yet.
func (r *Run) ReadPlan(gen int) (*Plan, error) {
	var p Plan
	path := r.Path(GenerationsDir, planFile(gen))
	err := readJSON(path, &p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if err := p.check(path, gen); err != nil {
		return nil, err
	}
	return &p, nil
}

// check checks a plan read from path as generation gen's: its generation,
// at least one chunk, each a chunk file name in games/ listed once, with
// no negative count and no positions without games.
func (p *Plan) check(path string, gen int) error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("runfolder: %s: %s", path, fmt.Sprintf(format, a...))
	}
	if p.Gen != gen {
		return bad("holds the plan of generation %d, not %d", p.Gen, gen)
	}
	if len(p.Chunks) == 0 {
		return bad("lists no chunks")
	}
	seen := make(map[string]bool, len(p.Chunks))
	for i, c := range p.Chunks {
		switch {
		case !chunkName(c.Name):
			return bad("chunk %d: %q is not a chunk file name in %s/", i+1, c.Name, GamesDir)
		case seen[c.Name]:
			return bad("chunk %d: %s is listed twice", i+1, c.Name)
		case c.Games < 0 || c.Positions < 0 || (c.Games == 0 && c.Positions > 0):
			return bad("chunk %d: %s counted as %d games and %d positions", i+1, c.Name, c.Games, c.Positions)
		}
		seen[c.Name] = true
	}
	return nil
}

// chunkName reports whether name can be a chunk file of games/: a plain
// file name, no folder, not hidden (temporary files are).
func chunkName(name string) bool {
	return name != "" && !strings.HasPrefix(name, ".") && !strings.ContainsRune(name, '/') && filepath.Base(name) == name
}

// WritePlan writes p as its generation's plan, atomically.
func (r *Run) WritePlan(p *Plan) error {
	return writeJSON(r.Path(GenerationsDir, planFile(p.Gen)), p)
}

// Plans reads the plans of generations 1..upto that exist, each checked,
// and checks that no chunk is in two of them: a chunk is consumed once.
func (r *Run) Plans(upto int) ([]Plan, error) {
	var out []Plan
	by := map[string]int{}
	for g := 1; g <= upto; g++ {
		p, err := r.ReadPlan(g)
		if err != nil {
			return nil, err
		}
		if p == nil {
			continue
		}
		if err := consumeOnce(by, r.Path(GenerationsDir, planFile(g)), p); err != nil {
			return nil, err
		}
		out = append(out, *p)
	}
	return out, nil
}

// consumeOnce records in by the generation that consumes each chunk of p
// (read from path), refusing a chunk an earlier plan consumed.
func consumeOnce(by map[string]int, path string, p *Plan) error {
	for _, c := range p.Chunks {
		if g, ok := by[c.Name]; ok {
			return fmt.Errorf("runfolder: %s: chunk %s was consumed already, by generation %d's plan (%s)", path, c.Name, g, planFile(g))
		}
		by[c.Name] = p.Gen
	}
	return nil
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
// from other machines uses it to recognise a chunk delivered twice. Each
// plan is checked as Plans checks it.
func (r *Run) ConsumedChunks() (map[string]bool, error) {
	paths, err := filepath.Glob(r.Path(GenerationsDir, "*.plan.json"))
	if err != nil {
		return nil, err
	}
	var gens []int
	for _, path := range paths {
		g, err := strconv.Atoi(strings.TrimSuffix(filepath.Base(path), ".plan.json"))
		if err != nil || g < 1 || planFile(g) != filepath.Base(path) {
			return nil, fmt.Errorf("runfolder: %s: not a plan file name (want NNNN.plan.json)", path)
		}
		gens = append(gens, g)
	}
	slices.Sort(gens)
	by := map[string]int{}
	for _, g := range gens {
		p, err := r.ReadPlan(g)
		if err != nil {
			return nil, err
		}
		if p == nil {
			continue // removed since the listing
		}
		if err := consumeOnce(by, r.Path(GenerationsDir, planFile(g)), p); err != nil {
			return nil, err
		}
	}
	out := make(map[string]bool, len(by))
	for name := range by {
		out[name] = true
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
