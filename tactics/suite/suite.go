package suite

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"dama/arena/classic"
	"dama/internal/atomicfile"
	"dama/rules"
)

// suiteVersion is the format version of suite files written now. Version
// 2 added the audit (Suite.AuditDepth, Position.Wins), version 3 the
// tables of the audit (Suite.AuditTables); files of versions 1 and 2,
// which have none, are read as well.
const suiteVersion = 3

// Suite is a set of tactical positions, each with its best moves as a
// deep full-width search proved them. It is stored as versioned JSON
// (arena/tactics/suite.json is the project's).
type Suite struct {
	Version int `json:"version"`
	// How the positions were chosen (BuildOptions), for the reader.
	ProvingDepth int `json:"proving_depth"`
	ShallowDepth int `json:"shallow_depth"`
	MinGain      int `json:"min_gain"`
	MinMargin    int `json:"min_margin"`
	ScreenDepth  int `json:"screen_depth"`
	// AuditDepth, when not 0, is the depth of the search that proved each
	// forced-win position's Wins (Builder.Audit); 0: not audited.
	AuditDepth int `json:"audit_depth,omitempty"`
	// AuditTables, when not 0, is the most pieces of the endgame tables the
	// audit also asked (Builder.Audit): a move is a win where they prove
	// it one, alone or at the ends of a search, also in a position whose
	// best move wins material when they prove that move a win of the game.
	AuditTables int        `json:"audit_tables,omitempty"`
	Positions   []Position `json:"positions"`
}

// Position is one tactical position of a Suite.
type Position struct {
	FEN string `json:"fen"`
	// Best are the moves that solve it, in full notation (rules.Move's
	// String): the deep search's best move, and any other within the
	// margin of it (none, as the suite is built).
	Best []string `json:"best"`
	// Score is the deep search's score of the best move in centi-men for
	// the side to move (classic's scale; about ±1,000,000 for a won game),
	// Second the best score of any other move, Gain the material the best
	// line wins (centi-men, after its captures) and Depth the depth of the
	// search that proved them.
	Score  int `json:"score"`
	Second int `json:"second"`
	Gain   int `json:"gain"`
	Depth  int `json:"depth"`
	// Wins are the other moves that win the game too, proven by the
	// suite's audit (a forced win within Suite.AuditDepth plies, where
	// Best wins within Depth): in a position whose best move is a forced
	// win, a slower proven win is no blind spot, and a player that plays
	// one is counted apart (Answer.Won). Empty for positions that win
	// material, and for those the audit found no other win in.
	Wins []string `json:"wins,omitempty"`
	// Shallow is the move the shallow search chose instead.
	Shallow string `json:"shallow"`
	// Source names the game and ply it comes from.
	Source string `json:"source"`
}

// Parsed returns the position of p and its best moves, or an error naming
// what is wrong.
func (p Position) Parsed() (rules.Position, []rules.Move, error) {
	pos, best, _, err := p.parsed()
	return pos, best, err
}

// parsed is Parsed, with the moves of Wins too (legal, none given twice,
// none a best move).
func (p Position) parsed() (pos rules.Position, best, wins []rules.Move, err error) {
	pos, err = rules.ParseFEN(p.FEN)
	if err != nil {
		return rules.Position{}, nil, nil, err
	}
	if !pos.HasMoves() {
		return rules.Position{}, nil, nil, fmt.Errorf("fen %q: the side to move has no move", p.FEN)
	}
	if len(p.Best) == 0 {
		return rules.Position{}, nil, nil, fmt.Errorf("fen %q: no best move", p.FEN)
	}
	moves := func(what string, list []string, seen []rules.Move) ([]rules.Move, error) {
		var out []rules.Move
		for _, s := range list {
			m, err := rules.ParseMove(pos, s)
			if err != nil {
				return nil, fmt.Errorf("fen %q: %s %q: %w", p.FEN, what, s, err)
			}
			if slices.Contains(out, m) || slices.Contains(seen, m) {
				return nil, fmt.Errorf("fen %q: %s %q given twice", p.FEN, what, s)
			}
			out = append(out, m)
		}
		return out, nil
	}
	if best, err = moves("best move", p.Best, nil); err != nil {
		return rules.Position{}, nil, nil, err
	}
	if len(best) == len(pos.Legal(nil)) {
		return rules.Position{}, nil, nil, fmt.Errorf("fen %q: every legal move is a best move", p.FEN)
	}
	if wins, err = moves("winning move", p.Wins, best); err != nil {
		return rules.Position{}, nil, nil, err
	}
	return pos, best, wins, nil
}

// Read reads and checks a suite file.
func Read(path string) (*Suite, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tactics: %w", err)
	}
	s, err := Decode(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// Decode parses and checks a suite file's contents: its version,
// unknown fields, and every position (Position.Parsed), named by its
// index.
func Decode(b []byte) (*Suite, error) {
	var probe struct {
		Version *int `json:"version"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return nil, fmt.Errorf("tactics: suite file is damaged: %w", err)
	}
	if probe.Version == nil {
		return nil, errors.New("tactics: suite file has no version")
	}
	if *probe.Version < 1 || *probe.Version > suiteVersion {
		return nil, fmt.Errorf("tactics: suite file version %d, this program reads versions 1 to %d", *probe.Version, suiteVersion)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var s Suite
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("tactics: suite file is damaged: %w", err)
	}
	if len(s.Positions) == 0 {
		return nil, errors.New("tactics: suite has no positions")
	}
	if s.AuditDepth < 0 || s.AuditDepth > classic.MaxDepth {
		return nil, fmt.Errorf("tactics: audit depth %d out of range 0..%d", s.AuditDepth, classic.MaxDepth)
	}
	if s.AuditTables < 0 || s.AuditTables > maxAuditTables || (s.AuditTables > 0 && s.AuditDepth == 0) {
		return nil, fmt.Errorf("tactics: audit tables of %d pieces (want 0..%d, and an audit depth with them)", s.AuditTables, maxAuditTables)
	}
	seen := map[string]int{}
	for i, p := range s.Positions {
		if _, _, _, err := p.parsed(); err != nil {
			return nil, fmt.Errorf("tactics: position %d: %w", i+1, err)
		}
		if len(p.Wins) > 0 && (s.AuditDepth == 0 || !classic.Decisive(p.Score) && s.AuditTables == 0) {
			return nil, fmt.Errorf("tactics: position %d: winning moves %v without an audit of a forced win, or one with tables (audit depth %d, score %d)", i+1, p.Wins, s.AuditDepth, p.Score)
		}
		if j, ok := seen[p.FEN]; ok {
			return nil, fmt.Errorf("tactics: position %d repeats position %d (%s)", i+1, j, p.FEN)
		}
		seen[p.FEN] = i + 1
	}
	return &s, nil
}

// Write writes s to path as indented JSON, under a temporary name renamed
// into place.
func (s *Suite) Write(path string) error {
	s.Version = suiteVersion
	return atomicfile.Write(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(s)
	})
}

// maxAuditTables bounds Suite.AuditTables: no tables hold more pieces.
const maxAuditTables = 32
