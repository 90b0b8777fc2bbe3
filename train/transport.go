package train

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

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
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		var p plan
		if err := json.Unmarshal(b, &p); err != nil {
			return nil, fmt.Errorf("train: %s: %w", path, err)
		}
		for _, c := range p.Chunks {
			out[c.Name] = true
		}
	}
	return out, nil
}
