package selfplay

import (
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"dama/configs"
)

// targetsOf returns the plies of games with a policy target.
func targetsOf(games []*Game) int {
	n := 0
	for _, g := range games {
		n += g.Targets()
	}
	return n
}

// TestScanMatchesDecode: Scan gives the identities and target counts of
// the games Decode reads, for the committed files of every version, for
// games with stored policy targets and resignations, and it refuses what
// Decode refuses for its frame.
func TestScanMatchesDecode(t *testing.T) {
	files := map[string][]byte{}
	for _, name := range []string{"games-v1.dgames", "games-v2.dgames", "games-v3.dgames", "games-v6.dgames"} {
		data, err := fileFormat.ReadFile(filepath.Join("testdata", name), maxFileSize)
		if err != nil {
			t.Fatal(err)
		}
		files[name] = data
	}
	_, h, games := checkGames(t, 12)
	files["resignations"] = encode(t, h, games)
	files["policy targets"] = encode(t, testHeader(), policyGames(t, 3))
	for name, data := range files {
		_, games, err := Decode(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		s, err := Scan(data)
		if err != nil {
			t.Fatalf("%s: Scan: %v", name, err)
		}
		if !slices.Equal(s.IDs, IDs(games)) || s.Targets != targetsOf(games) {
			t.Errorf("%s: Scan gives %d ids and %d targets, Decode %d and %d (ids equal: %v)", name, len(s.IDs), s.Targets, len(games), targetsOf(games), slices.Equal(s.IDs, IDs(games)))
		}
		if targetsOf(games) == 0 {
			t.Errorf("%s: no targets", name)
		}
		for _, cut := range []int{len(data) / 2, len(data) - 1} {
			if _, err := Scan(data[:cut]); err == nil {
				t.Errorf("%s cut to %d bytes: scanned", name, cut)
			}
		}
	}
}

// TestGameID: the identity follows the moves and the seed, nothing else.
func TestGameID(t *testing.T) {
	_, _, games := checkGames(t, 3)
	g := games[0]
	same := clone(g)
	same.Result, same.NoResign = 0, !g.NoResign
	same.Plies[0].Visits = slices.Clone(g.Plies[0].Visits)
	same.Plies[0].Visits[0] += 7
	same.Plies[0].WDL = [3]float32{1, 0, 0}
	if same.ID() != g.ID() {
		t.Errorf("results, flags and targets change the identity")
	}
	if a, b := g.ID(), games[1].ID(); a.Seed == b.Seed || a.Moves == b.Moves {
		t.Errorf("two games share seed or moves: %v %v", a, b)
	}
	short := clone(g)
	short.Plies = short.Plies[:len(short.Plies)-1]
	if short.ID().Moves == g.ID().Moves {
		t.Errorf("a game one move shorter has the same moves digest")
	}
}

// TestCheckRefusesReplays: a chunk with a game the run holds is refused,
// by its seed or, with new seeds, by its moves; and a chunk whose games
// repeat each other; the chunk that holds the games passes again.
func TestCheckRefusesReplays(t *testing.T) {
	cfg, h, games := checkGames(t, 6)
	held := NewGameIndex()
	if n := held.Add("chunk-a-000000.dgames", IDs(games[:3])); n != 0 || held.Len() != 3 {
		t.Fatalf("Add: %d repeats, %d held", n, held.Len())
	}
	c := &Checker{Settings: []configs.SelfPlay{cfg.SelfPlay}, Held: held}
	if err := c.Check("chunk-a-000000.dgames", h, games[:3]); err != nil {
		t.Errorf("the holding chunk again: %v", err)
	}
	if err := c.Check("chunk-b-000000.dgames", h, games[3:]); err != nil {
		t.Errorf("new games: %v", err)
	}
	mustRefuse(t, c, h, []*Game{games[3], games[1]}, 1, "seed")
	// The copy with a new seed: format-only check (the settings tie seeds
	// to the header), refused by its moves.
	relabelled := clone(games[2])
	relabelled.Seed++
	mustRefuse(t, &Checker{Held: held}, h, []*Game{games[4], relabelled}, 1, "repeats the moves of a game of chunk-a-000000.dgames")
	mustRefuse(t, &Checker{Held: NewGameIndex()}, h, []*Game{games[4], games[5], games[4]}, 2, "game 0 of this chunk")
	if err := (&Checker{}).Check("c", h, []*Game{games[4], games[4]}); err != nil {
		t.Errorf("without an index, repeats are not looked for: %v", err)
	}
	if n := held.Add("chunk-c-000000.dgames", IDs(games[1:4])); n != 2 {
		t.Errorf("Add of two held games and a new one counted %d repeats", n)
	}
}

// TestGameIndexHolders: across the merges of its recent keys into the
// sorted ones, the index finds every game with the chunk that took it
// first, by seed and by moves.
func TestGameIndexHolders(t *testing.T) {
	x := NewGameIndex()
	rng := rand.New(rand.NewPCG(1, 2))
	var all [][]GameID
	for c := range 40 {
		ids := make([]GameID, 300)
		for i := range ids {
			ids[i] = GameID{Seed: rng.Uint64(), Moves: rng.Uint64()}
		}
		if n := x.Add(ChunkName("w", c), ids); n != 0 {
			t.Fatalf("chunk %d: %d repeats of random games", c, n)
		}
		all = append(all, ids)
	}
	if x.Len() != 40*300 || x.moves.len() != len(x.moves.keys)+len(x.moves.recent) || len(x.moves.keys) == 0 {
		t.Fatalf("%d games held, %d sorted", x.Len(), len(x.moves.keys))
	}
	for c, ids := range all {
		for _, k := range []int{0, 150, 299} {
			bySeed := GameID{Seed: ids[k].Seed, Moves: rng.Uint64()}
			byMoves := GameID{Seed: rng.Uint64(), Moves: ids[k].Moves}
			for _, id := range []GameID{bySeed, byMoves} {
				_, why, ok := x.Repeat("chunk-new-000000.dgames", []GameID{id})
				if !ok || !strings.Contains(why, ChunkName("w", c)+",") {
					t.Fatalf("game %d of chunk %d: %q, %v", k, c, why, ok)
				}
			}
			if _, why, ok := x.Repeat(ChunkName("w", c), []GameID{ids[k]}); ok {
				t.Fatalf("a chunk's own game counts as a repeat: %s", why)
			}
		}
	}
	if n := x.Add("chunk-again-000000.dgames", all[3][:10]); n != 10 {
		t.Errorf("Add of 10 held games counted %d repeats", n)
	}
}
