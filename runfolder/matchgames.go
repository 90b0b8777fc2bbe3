package runfolder

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
)

// MatchKind is a kind of match whose games a run keeps in GenerationsDir,
// as PDN: the gating match of a generation's candidate, and the ladder
// rating of the best model after a generation.
type MatchKind string

// The match kinds.
const (
	ArenaGames  MatchKind = "arena"
	LadderGames MatchKind = "ladder"
)

// MatchKinds are the match kinds, in the order a generation plays them.
var MatchKinds = []MatchKind{ArenaGames, LadderGames}

// MatchGamesName names the PDN file of generation gen's games of kind in
// GenerationsDir: NNNN.arena.pdn, NNNN.ladder.pdn.
func MatchGamesName(kind MatchKind, gen int) string {
	return fmt.Sprintf("%04d.%s.pdn", gen, kind)
}

// MatchGamesPath is the path of generation gen's games of kind.
func (r *Run) MatchGamesPath(kind MatchKind, gen int) string {
	return r.Path(GenerationsDir, MatchGamesName(kind, gen))
}

// matchGamesGen parses a MatchGamesName of kind ("0007.arena.pdn" -> 7);
// no other spelling of the number is one.
func matchGamesGen(kind MatchKind, name string) (int, bool) {
	num, ok := strings.CutSuffix(name, "."+string(kind)+".pdn")
	if !ok {
		return 0, false
	}
	gen, err := strconv.Atoi(num)
	if err != nil || gen < 1 || MatchGamesName(kind, gen) != name {
		return 0, false
	}
	return gen, true
}

// MatchGamesGens lists the generations that have a file of games of kind,
// in increasing order (none in a run from before these files, or where
// the gate and the ladder play no games). Temporary files of a writer and
// other names are not listed.
func (r *Run) MatchGamesGens(kind MatchKind) ([]int, error) {
	ents, err := os.ReadDir(r.Path(GenerationsDir))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []int
	for _, e := range ents {
		if gen, ok := matchGamesGen(kind, e.Name()); ok && e.Type().IsRegular() {
			out = append(out, gen)
		}
	}
	slices.Sort(out)
	return out, nil
}
