package web

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"dama/rules"
	"dama/runfolder"
)

// matchIndex knows the games the trainer keeps of its matches: the gating
// match of each generation (generations/NNNN.arena.pdn) and the ladder
// rating after it (NNNN.ladder.pdn). A game's id is the kind's letter, the
// generation and the game's number in its file: "a3-0" is the first game
// of generation 3's gating match, "l5-12" the thirteenth of the ladder
// rating after generation 5. A file is read again only when its size or
// modification time changed (a restarted generation rewrites its file);
// a run from before these files has none, and lists self-play games only.
type matchIndex struct {
	run *runfolder.Run

	mu    sync.Mutex
	files map[matchFile]*matchEntry
}

type matchFile struct {
	kind runfolder.MatchKind
	gen  int
}

type matchEntry struct {
	size  int64
	mod   time.Time
	err   string // why the file does not read, "" when it does
	recs  []rules.Record
	games []gameSummary
}

// kindLetters are the first letters of match game ids.
var kindLetters = map[runfolder.MatchKind]string{runfolder.ArenaGames: "a", runfolder.LadderGames: "l"}

// maxMatchFile bounds the size of a match's PDN file the server reads (a
// gating match of a thousand games is about 1 MiB).
const maxMatchFile = 64 << 20

// maxMatchReadsPerList bounds the files one listing reads for the first
// time (or again, after a change), as maxReadPerList does for chunks.
const maxMatchReadsPerList = 20

func newMatchIndex(run *runfolder.Run) *matchIndex {
	return &matchIndex{run: run, files: map[matchFile]*matchEntry{}}
}

// load returns the entry of f, read again when the file changed. The path
// is made from f's kind and number, never taken from a request; a file
// that is not a regular file (a link could lead out of the run) is
// refused. ok is false when the file does not exist; stale reports that
// the entry is out of date because read was false.
func (x *matchIndex) load(f matchFile, read bool) (e *matchEntry, ok, stale bool) {
	path := x.run.MatchGamesPath(f.kind, f.gen)
	st, err := os.Lstat(path)
	if err != nil {
		return nil, false, false
	}
	x.mu.Lock()
	e = x.files[f]
	x.mu.Unlock()
	if e != nil && e.size == st.Size() && e.mod.Equal(st.ModTime()) {
		return e, true, false
	}
	if !read {
		return e, e != nil, true
	}
	e = &matchEntry{size: st.Size(), mod: st.ModTime()}
	switch {
	case !st.Mode().IsRegular():
		e.err = "not a regular file"
	case st.Size() > maxMatchFile:
		e.err = fmt.Sprintf("%d bytes, more than the %d this server reads", st.Size(), maxMatchFile)
	default:
		if b, err := os.ReadFile(path); err != nil {
			e.err = oneLine(err)
		} else if e.recs, err = rules.ParsePDN(string(b)); err != nil {
			e.err, e.recs = oneLine(err), nil
		}
	}
	for i, r := range e.recs {
		e.games = append(e.games, summarizeRecord(f, i, r))
	}
	x.mu.Lock()
	x.files[f] = e
	x.mu.Unlock()
	return e, true, false
}

func summarizeRecord(f matchFile, i int, r rules.Record) gameSummary {
	white, _ := r.Tag("White")
	black, _ := r.Tag("Black")
	end, _ := r.Tag("Termination")
	return gameSummary{
		ID: matchGameID(f, i), Kind: string(f.kind), Chunk: runfolder.MatchGamesName(f.kind, f.gen), Gen: f.gen,
		White: white, Black: black, Plies: len(r.Moves), Result: r.Result.String(), Winner: winnerName(r.Result), End: end,
	}
}

func matchGameID(f matchFile, i int) string {
	return fmt.Sprintf("%s%d-%d", kindLetters[f.kind], f.gen, i)
}

// list returns the summaries of the kept match games, by generation,
// newest first, the ladder's after the gating match's of the same
// generation (it was played later), from the files read before and at
// most maxMatchReadsPerList more; complete says every file is in, gens
// are the generations with a file.
func (x *matchIndex) list() (out []gameSummary, problems []string, gens []int, complete bool, err error) {
	byGen := map[int][]matchFile{}
	for _, kind := range runfolder.MatchKinds {
		gs, err := x.run.MatchGamesGens(kind)
		if err != nil {
			return nil, nil, nil, false, err
		}
		for _, g := range gs {
			if len(byGen[g]) == 0 {
				gens = append(gens, g)
			}
			byGen[g] = append(byGen[g], matchFile{kind, g})
		}
	}
	complete = true
	reads := 0
	slices.Sort(gens)
	slices.Reverse(gens)
	for _, g := range gens {
		fs := byGen[g]
		for k := len(fs) - 1; k >= 0; k-- {
			f := fs[k]
			e, ok, stale := x.load(f, reads < maxMatchReadsPerList)
			switch {
			case !ok && !stale:
				continue // removed since the listing
			case stale:
				complete = false
				if e == nil {
					continue
				}
			default:
				reads++
			}
			if e.err != "" {
				problems = append(problems, runfolder.MatchGamesName(f.kind, f.gen)+": "+e.err)
				continue
			}
			out = append(out, e.games...)
		}
	}
	return out, problems, gens, complete, nil
}

// isMatchID reports whether id names a match game (it starts with a
// letter; self-play ids start with a digit).
func isMatchID(id string) bool {
	return id != "" && (id[0] < '0' || id[0] > '9')
}

// parseMatchID reads "aGEN-I" or "lGEN-I", written as matchGameID writes
// it (no sign, no leading zero).
func parseMatchID(id string) (matchFile, int, error) {
	var f matchFile
	for kind, letter := range kindLetters {
		if strings.HasPrefix(id, letter) {
			f.kind = kind
		}
	}
	if f.kind == "" {
		return f, 0, fmt.Errorf("game id %q: unknown kind %q (want a for a gating match, l for a ladder rating, or a self-play id CHUNK-GAME)", id, id[:1])
	}
	a, b, ok := strings.Cut(id[1:], "-")
	gen, err1 := strconv.Atoi(a)
	i, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || gen < 1 || i < 0 || len(id) > 24 || matchGameID(matchFile{f.kind, gen}, i) != id {
		return f, 0, fmt.Errorf("game id %q: want %sGENERATION-GAME, two numbers from the games list", id, kindLetters[f.kind])
	}
	f.gen = gen
	return f, i, nil
}

// game finds a match game by id.
func (x *matchIndex) game(id string) (matchFile, rules.Record, error) {
	f, i, err := parseMatchID(id)
	if err != nil {
		return f, rules.Record{}, err
	}
	e, ok, _ := x.load(f, true)
	switch {
	case !ok:
		return f, rules.Record{}, fmt.Errorf("game id %q: the run keeps no %s games of generation %d", id, f.kind, f.gen)
	case e.err != "":
		return f, rules.Record{}, fmt.Errorf("game id %q: %s: %s", id, runfolder.MatchGamesName(f.kind, f.gen), e.err)
	case i >= len(e.recs):
		return f, rules.Record{}, fmt.Errorf("game id %q: generation %d's %s file has %d games", id, f.gen, f.kind, len(e.recs))
	}
	return f, e.recs[i], nil
}

// handleMatchGame serves a match game's replay: the moves and boards, and
// no search statistics (the PDN file keeps the moves only; stats false).
func (s *Server) handleMatchGame(w http.ResponseWriter, id string) {
	f, r, err := s.matches.game(id)
	if err != nil {
		httpError(w, http.StatusNotFound, oneLine(err))
		return
	}
	plies := make([]plyView, len(r.Moves))
	p := r.Start
	for i, m := range r.Moves {
		plies[i] = movePly(p, m)
		p = p.Play(m)
	}
	white, _ := r.Tag("White")
	black, _ := r.Tag("Black")
	event, _ := r.Tag("Event")
	end, _ := r.Tag("Termination")
	writeJSON(w, map[string]any{
		"id": id, "kind": string(f.kind), "gen": f.gen, "chunk": runfolder.MatchGamesName(f.kind, f.gen),
		"white": white, "black": black, "event": event, "stats": false,
		"start": boardString(r.Start), "start_fen": r.Start.FEN(), "start_side": r.Start.Side().String(),
		"result": r.Result.String(), "winner": winnerName(r.Result), "end": end, "plies": plies,
	})
}

// handleMatchGamePDN serves a match game as PDN, with its tags.
func (s *Server) handleMatchGamePDN(w http.ResponseWriter, id string) {
	_, r, err := s.matches.game(id)
	if err != nil {
		httpError(w, http.StatusNotFound, oneLine(err))
		return
	}
	var buf bytes.Buffer
	if err := rules.WritePDN(&buf, r); err != nil {
		httpError(w, http.StatusInternalServerError, oneLine(err))
		return
	}
	servePDN(w, "dama-game-"+id+".pdn", buf.Bytes())
}

// handleMatchPDN serves the whole PDN file of a match:
// ?kind=arena|ladder&gen=N.
func (s *Server) handleMatchPDN(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	kind := runfolder.MatchKind(q.Get("kind"))
	if _, ok := kindLetters[kind]; !ok {
		httpError(w, http.StatusBadRequest, fmt.Sprintf("kind=%q: want arena or ladder", kind))
		return
	}
	gen, err := strconv.Atoi(q.Get("gen"))
	if err != nil || gen < 1 || gen > 1<<30 {
		httpError(w, http.StatusBadRequest, fmt.Sprintf("gen=%q: want a generation number from 1", q.Get("gen")))
		return
	}
	e, ok, _ := s.matches.load(matchFile{kind, gen}, true)
	switch {
	case !ok:
		httpError(w, http.StatusNotFound, fmt.Sprintf("the run keeps no %s games of generation %d", kind, gen))
		return
	case e.err != "":
		httpError(w, http.StatusNotFound, runfolder.MatchGamesName(kind, gen)+": "+e.err)
		return
	}
	var buf bytes.Buffer
	if err := rules.WritePDN(&buf, e.recs...); err != nil {
		httpError(w, http.StatusInternalServerError, oneLine(err))
		return
	}
	servePDN(w, "dama-"+runfolder.MatchGamesName(kind, gen), buf.Bytes())
}

// servePDN sends a PDN text as a download named name.
func servePDN(w http.ResponseWriter, name string, b []byte) {
	w.Header().Set("Content-Type", "application/x-pdn; charset=utf-8")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s"`, name))
	w.Write(b)
}
