package selfplay

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"dama/configs"
	"dama/tactics"
)

// Config is what self-play plays by: the selfplay section of the run
// configuration, used as it is (its keys, ranges, defaults and the meaning
// of each zero are configs.SelfPlay's: 0 turns an optional technique off),
// and the base seed. Start from configs.Default().SelfPlay or a loaded
// configuration; newPlayer and Run refuse settings out of range.
type Config struct {
	configs.SelfPlay
	// Seed is the base seed; each game's seed is derived from it and the
	// game's index (GameSeed).
	Seed uint64
}

// Validate returns every field of c out of range, each naming its key
// (ValidateSettings), or nil.
func (c Config) Validate() error { return ValidateSettings(c.SelfPlay) }

// ValidateSettings returns every problem of the self-play section s, each
// a *configs.FieldError naming its key, or nil: the ranges configs checks
// (configs.SelfPlay.Validate) and selfplay.hybrids, a list in the syntax
// of package tactics that configs, which imports no package of dama,
// leaves to this package (HybridsError). Every path that plays self-play
// checks it before its first game: the trainer (train.Loop, and dama
// train right after loading), dama selfplay --config, the workers
// (Worker.Run and Play: dama selfplay worker --run, the trainer's own), the
// broker worker on receiving the run's configuration, and Run.
func ValidateSettings(s configs.SelfPlay) error {
	return errors.Join(s.Validate(), HybridsError(s.Hybrids))
}

// HybridsError returns the error of selfplay.hybrids = s, or nil: a list
// that tactics.ParseHybrids refuses (one naming a removed hybrid, the
// verifier ab, says so). The error names the key and the value, as
// configs' errors do.
func HybridsError(s string) error {
	_, err := tactics.ParseHybrids(s)
	var want string
	switch {
	case errors.Is(err, tactics.ErrRemoved):
		want = fmt.Sprintf("mm[DEPTH], cmb[DEPTH] and ip[DEPTH] only: %s", strings.TrimPrefix(err.Error(), "tactics: hybrid "))
	case err != nil:
		want = fmt.Sprintf(`"" or none, or a comma-separated list of mm[DEPTH], cmb[DEPTH] and ip[DEPTH], each at most once, DEPTH in 1..%d (the syntax of dama play --hybrids)`, tactics.MaxMinimaxDepth)
	default:
		return nil
	}
	return &configs.FieldError{Field: "selfplay.hybrids", Value: fmt.Sprintf("%q", s), Want: want}
}

// Digest returns a hex SHA-256 of the settings that decide the games
// (the search and game settings and the seed, not the evaluator's), so
// that the games of equal settings carry equal digests (Header).
func (c Config) Digest() string {
	b, err := json.Marshal(c.digestForm())
	if err != nil {
		panic(err) // a struct of numbers always marshals
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// digestForm returns what Digest hashes.
func (c Config) digestForm() digestForm {
	d := digestForm{
		Visits: c.Visits, CPuct: c.CPuct, FPUReduction: c.FPUReduction,
		DirichletAlpha: c.DirichletAlpha, DirichletFraction: c.DirichletFraction,
		TemperaturePlies: c.TemperaturePlies, MaxPlies: c.MaxPlies,
		Parallel: c.Parallel, LeavesInFlight: c.LeavesInFlight,
		CheapVisits: c.CheapVisits, FullSearchProb: c.FullSearchProb,
		ResignThreshold: c.ResignThreshold, ResignMoves: c.ResignMoves,
		NoResignShare: c.NoResignShare, Seed: c.Seed,
		PassForced: c.PassForced,
		Tables:     c.Tables, Hybrids: c.hybridsDigest(),
	}
	if c.PolicyTemp != 1 {
		d.PolicyTemp = c.PolicyTemp // 1 searches as 0 does
	}
	return d
}

// hybridsDigest returns Hybrids as the digest holds it: "" for none ("" or
// "none"), else the list with every depth written (tactics.Hybrids.String:
// "mm" and "mm4" play the same games).
func (c Config) hybridsDigest() string {
	h, err := tactics.ParseHybrids(c.Hybrids)
	switch {
	case err != nil:
		return c.Hybrids // refused by Validate (HybridsError)
	case h == tactics.Hybrids{}:
		return ""
	}
	return h.String()
}

// digestForm is what Digest hashes, as JSON: the form in which earlier
// versions hashed the same settings, so that a digest does not change
// across versions (a golden test holds it). Frozen: a new setting is added
// with omitempty and left zero while it is off. A removed setting
// (configs' removedKeys) goes from it: it was zero, so absent, whenever
// it was off, which is the only way settings can have it now, and its
// absence keeps every digest of those settings: solver, forced_playouts_k
// and policy_target_pruning (omitempty), and Gumbel root search's
// root_search, gumbel_m, gumbel_c_visit and gumbel_c_scale (here only
// with root_search gumbel).
type digestForm struct {
	Visits            int     `json:"visits"`
	CPuct             float64 `json:"cpuct"`
	FPUReduction      float64 `json:"fpu_reduction"`
	DirichletAlpha    float64 `json:"dirichlet_alpha"`
	DirichletFraction float64 `json:"dirichlet_fraction"`
	TemperaturePlies  int     `json:"temperature_plies"`
	MaxPlies          int     `json:"max_plies"`
	Parallel          int     `json:"parallel"`
	LeavesInFlight    int     `json:"leaves_in_flight"`
	CheapVisits       int     `json:"cheap_visits"`
	FullSearchProb    float64 `json:"full_search_prob"`
	ResignThreshold   float64 `json:"resign_threshold"`
	ResignMoves       int     `json:"resign_moves"`
	NoResignShare     float64 `json:"no_resign_share"`
	Seed              uint64  `json:"seed"`
	PassForced        bool    `json:"pass_forced,omitempty"`
	Tables            string  `json:"tables,omitempty"`
	Hybrids           string  `json:"hybrids,omitempty"`     // tactics.Hybrids.String, "" for none
	PolicyTemp        float64 `json:"policy_temp,omitempty"` // 0 for the priors as given (0 or 1)
}
