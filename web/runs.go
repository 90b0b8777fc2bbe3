package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"dama/configs"
	"dama/runfolder"
)

// runEntry is one run the server shows: its id in requests, its watcher
// and its chunk index. The first run's games and checkpoints are those of
// the games and play pages; every run has its run page and its curves.
type runEntry struct {
	ID    string
	Name  string // run.name of its configuration, else the id
	run   *runfolder.Run
	idx   *gameIndex
	watch *watcher
}

// runIDs names runs by the base names of their folders, a second run of
// the same base name with "-2" and so on; the same folder twice is an
// error naming it.
func runIDs(runs []*runfolder.Run) ([]string, error) {
	seen := map[string]bool{}
	dirs := map[string]bool{}
	var out []string
	for _, r := range runs {
		abs, err := filepath.Abs(r.Dir)
		if err != nil {
			return nil, fmt.Errorf("run folder %s: %w", r.Dir, err)
		}
		if dirs[abs] {
			return nil, fmt.Errorf("run folder %s is given twice", r.Dir)
		}
		dirs[abs] = true
		base := filepath.Base(abs)
		id := base
		for k := 2; seen[id]; k++ {
			id = fmt.Sprintf("%s-%d", base, k)
		}
		seen[id] = true
		out = append(out, id)
	}
	return out, nil
}

// FindRuns lists the run folders in dir: its subfolders that hold a
// config.yaml, a generations/ folder or a metrics.jsonl, by name. A dir
// that holds none is an error naming it.
func FindRuns(dir string) ([]*runfolder.Run, error) {
	top := &runfolder.Run{Dir: dir}
	if err := top.Exists(); err != nil {
		return nil, err
	}
	subs, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		return nil, err
	}
	var out []*runfolder.Run
	for _, sub := range subs {
		r := &runfolder.Run{Dir: sub}
		if r.Exists() == nil && isRunFolder(r) {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s holds no run folder (a folder with %s, %s/ or %s)", dir, runfolder.ConfigFile, runfolder.GenerationsDir, runfolder.MetricsFile)
	}
	return out, nil
}

// Runs are the runs of dama serve: the folders dirs, in order, then the
// run folders in folder (FindRuns); each must exist, and there must be
// one.
func Runs(dirs []string, folder string) ([]*runfolder.Run, error) {
	var out []*runfolder.Run
	for _, d := range dirs {
		r := &runfolder.Run{Dir: d}
		if err := r.Exists(); err != nil {
			return nil, err
		}
		if !isRunFolder(r) {
			if inner, err := FindRuns(d); err == nil {
				return nil, fmt.Errorf("--run %s: not a run folder, but it holds %d runs: --runs %s shows them", d, len(inner), d)
			}
		}
		out = append(out, r)
	}
	if folder != "" {
		more, err := FindRuns(folder)
		if err != nil {
			return nil, err
		}
		for _, r := range more {
			if !slices.ContainsFunc(out, func(o *runfolder.Run) bool { return sameDir(o.Dir, r.Dir) }) {
				out = append(out, r) // a --run folder is not shown twice
			}
		}
	}
	if len(out) == 0 {
		return nil, errors.New("missing --run DIR or --runs DIR (usage: dama serve --run DIR [--run DIR]... [--http 127.0.0.1:8080])")
	}
	return out, nil
}

func sameDir(a, b string) bool {
	x, err1 := filepath.Abs(a)
	y, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && x == y
}

// isRunFolder reports whether r holds what a trainer writes first.
func isRunFolder(r *runfolder.Run) bool {
	for _, name := range []string{runfolder.ConfigFile, runfolder.GenerationsDir, runfolder.MetricsFile} {
		if _, err := os.Stat(r.Path(name)); err == nil {
			return true
		}
	}
	return false
}

// runName is a run's run.name, or "" when its configuration does not
// load.
func runName(r *runfolder.Run) string {
	if cfg, err := configs.Load(r.Path(runfolder.ConfigFile), nil, nil); err == nil {
		return cfg.Run.Name
	}
	return ""
}

// entry returns the run of id, the first run for "".
func (s *Server) entry(id string) (*runEntry, error) {
	if id == "" {
		return s.runs[0], nil
	}
	for _, e := range s.runs {
		if e.ID == id {
			return e, nil
		}
	}
	ids := make([]string, len(s.runs))
	for i, e := range s.runs {
		ids[i] = e.ID
	}
	return nil, fmt.Errorf("no run %q: this server shows %s", id, strings.Join(ids, ", "))
}

// runInfo is one run of GET /api/runs.
type runInfo struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Dir  string `json:"dir"`
}

// handleRuns lists the runs the server shows, the first being that of
// the games and play pages.
func (s *Server) handleRuns(w http.ResponseWriter, r *http.Request) {
	out := []runInfo{}
	for _, e := range s.runs {
		out = append(out, runInfo{ID: e.ID, Name: e.Name, Dir: e.run.Dir})
	}
	writeJSON(w, map[string]any{"runs": out})
}

// overlaySections are the sections an overlaid run sends: what its curves
// and its legend need.
var overlaySections = map[string]bool{"summary": true, "generations": true, "losses": true, "arena": true, "ladder": true, "error": true}

// overlayEvent is the data of an "overlay" event: one section of a run
// whose curves are drawn over the shown run's.
type overlayEvent struct {
	Run     string          `json:"run"`
	Section string          `json:"section"`
	Data    json.RawMessage `json:"data"`
}
