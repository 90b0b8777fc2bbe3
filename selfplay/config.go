package selfplay

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"dama/mcts"
	"dama/rules"
)

// Config configures self-play. The zero value of every field means its
// documented default; where a feature is on by default, a negative value
// turns it off. Field tags give the snake_case keys of config files.
type Config struct {
	// Visits is the root visit count of a full search. Default 200.
	Visits int `mapstructure:"visits" json:"visits"`
	// CPuct, FPUReduction, DirichletAlpha: see mcts.Options (defaults
	// mcts.DefaultCPuct, mcts.DefaultFPUReduction, mcts.DefaultDirichletAlpha;
	// a negative FPUReduction means none).
	CPuct          float64 `mapstructure:"cpuct" json:"cpuct"`
	FPUReduction   float64 `mapstructure:"fpu_reduction" json:"fpu_reduction"`
	DirichletAlpha float64 `mapstructure:"dirichlet_alpha" json:"dirichlet_alpha"`
	// DirichletFraction is the weight of the root noise of full searches.
	// Default mcts.DefaultDirichletFraction; negative: no noise.
	DirichletFraction float64 `mapstructure:"dirichlet_fraction" json:"dirichlet_fraction"`
	// TemperaturePlies is the number of opening plies whose move is drawn
	// in proportion to the visit counts (temperature 1); later moves take
	// the most visited move. Default 16; negative: none.
	TemperaturePlies int `mapstructure:"temperature_plies" json:"temperature_plies"`
	// MaxPlies is the length cap: a game still going after MaxPlies plies
	// is adjudicated a draw (and the search treats the cap as a draw).
	// Default 300; negative: no cap.
	MaxPlies int `mapstructure:"max_plies" json:"max_plies"`
	// Parallel is the number of games played at once, sharing one
	// evaluator. Default 32.
	Parallel int `mapstructure:"parallel" json:"parallel"`
	// LeavesInFlight is the number of leaves one search evaluates at once
	// (mcts.Options.Parallel). Default 1.
	LeavesInFlight int `mapstructure:"leaves_in_flight" json:"leaves_in_flight"`
	// CheapVisits turns on playout cap randomisation (KataGo): a move gets
	// a full search (Visits, with noise, recorded as a policy target) with
	// probability FullSearchProb, otherwise a cheap one of CheapVisits
	// visits without noise, not a policy target. Default 0: off, every
	// move gets a full search.
	CheapVisits int `mapstructure:"cheap_visits" json:"cheap_visits"`
	// FullSearchProb is the share of full searches when CheapVisits > 0.
	// Default 0.25.
	FullSearchProb float64 `mapstructure:"full_search_prob" json:"full_search_prob"`
	// ResignThreshold turns on resignation: a side resigns when the root
	// expected score W+D/2 of its searches stays below ResignThreshold for
	// ResignMoves of its moves in a row. Default 0: off. A typical value
	// is 0.05.
	ResignThreshold float64 `mapstructure:"resign_threshold" json:"resign_threshold"`
	// ResignMoves is the number of consecutive moves below the threshold.
	// Default 3.
	ResignMoves int `mapstructure:"resign_moves" json:"resign_moves"`
	// NoResignShare is the share of games that never resign, played out
	// to measure false resignations (Game.FalseResignation). Default 0.1;
	// negative: none.
	NoResignShare float64 `mapstructure:"no_resign_share" json:"no_resign_share"`
	// Seed is the base seed; each game's seed is derived from it and the
	// game's index (GameSeed).
	Seed uint64 `mapstructure:"seed" json:"seed"`

	// The learning-efficiency techniques below are off at their zero
	// values, which the digest leaves out, so that a Config without them
	// keeps its digest.

	// Solver turns on the MCTS solver (mcts.Options.Solver). Default off.
	Solver bool `mapstructure:"solver" json:"solver,omitempty"`
	// PassForced passes positions with one legal move below the root
	// without evaluation (mcts.Options.PassForced). Default off.
	PassForced bool `mapstructure:"pass_forced" json:"pass_forced,omitempty"`
	// ForcedPlayoutsK turns on forced playouts at the root of full
	// searches (mcts.Options.ForcedPlayoutsK); 0: off. Not with Gumbel.
	ForcedPlayoutsK float64 `mapstructure:"forced_playouts_k" json:"forced_playouts_k,omitempty"`
	// PolicyTargetPruning records the visits of full searches with the
	// forced playouts taken out (mcts.PruneVisits) as the policy target.
	// Needs ForcedPlayoutsK.
	PolicyTargetPruning bool `mapstructure:"policy_target_pruning" json:"policy_target_pruning,omitempty"`
	// RootSearch is "puct" (the zero value "" means puct) or "gumbel":
	// Gumbel search (mcts.Options.Gumbel) with Gumbel noise in full
	// searches instead of Dirichlet noise, the move chosen by sequential
	// halving (no temperature), and the completed-Q policy recorded as
	// each full search's policy target (Ply.Policy).
	RootSearch string `mapstructure:"root_search" json:"root_search,omitempty"`
	// GumbelM, GumbelCVisit, GumbelCScale: see mcts.Options (defaults
	// mcts.DefaultGumbelM, mcts.DefaultGumbelCVisit,
	// mcts.DefaultGumbelCScale; used only with Gumbel).
	GumbelM      int     `mapstructure:"gumbel_m" json:"gumbel_m,omitempty"`
	GumbelCVisit float64 `mapstructure:"gumbel_c_visit" json:"gumbel_c_visit,omitempty"`
	GumbelCScale float64 `mapstructure:"gumbel_c_scale" json:"gumbel_c_scale,omitempty"`
}

// Gumbel reports whether c asks for Gumbel root search.
func (c Config) Gumbel() bool { return c.RootSearch == "gumbel" }

// WithDefaults returns c with every zero field set to its default and
// every "off" (negative) field set to 0.
func (c Config) WithDefaults() Config {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		} else if *v < 0 {
			*v = 0
		}
	}
	deff := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		} else if *v < 0 {
			*v = 0
		}
	}
	def(&c.Visits, 200)
	if c.CPuct == 0 {
		c.CPuct = mcts.DefaultCPuct
	}
	deff(&c.FPUReduction, mcts.DefaultFPUReduction)
	if c.DirichletAlpha == 0 {
		c.DirichletAlpha = mcts.DefaultDirichletAlpha
	}
	deff(&c.DirichletFraction, mcts.DefaultDirichletFraction)
	def(&c.TemperaturePlies, 16)
	def(&c.MaxPlies, 300)
	def(&c.Parallel, 32)
	def(&c.LeavesInFlight, 1)
	if c.FullSearchProb == 0 {
		c.FullSearchProb = 0.25
	}
	def(&c.ResignMoves, 3)
	deff(&c.NoResignShare, 0.1)
	if c.RootSearch == "puct" {
		c.RootSearch = ""
	}
	if c.Gumbel() {
		if c.GumbelM == 0 {
			c.GumbelM = mcts.DefaultGumbelM
		}
		if c.GumbelCVisit == 0 {
			c.GumbelCVisit = mcts.DefaultGumbelCVisit
		}
		if c.GumbelCScale == 0 {
			c.GumbelCScale = mcts.DefaultGumbelCScale
		}
	} else {
		c.GumbelM, c.GumbelCVisit, c.GumbelCScale = 0, 0, 0
	}
	return c
}

// Validate reports the first field of c (defaults filled in) that is out of
// range.
func (c Config) Validate() error {
	c = c.WithDefaults()
	switch {
	case c.CPuct <= 0:
		return fmt.Errorf("selfplay: cpuct %v must be positive", c.CPuct)
	case c.DirichletAlpha <= 0:
		return fmt.Errorf("selfplay: dirichlet_alpha %v must be positive", c.DirichletAlpha)
	case c.DirichletFraction > 1:
		return fmt.Errorf("selfplay: dirichlet_fraction %v must be at most 1", c.DirichletFraction)
	case c.CheapVisits < 0:
		return fmt.Errorf("selfplay: cheap_visits %d must not be negative", c.CheapVisits)
	case c.CheapVisits > c.Visits:
		return fmt.Errorf("selfplay: cheap_visits %d exceeds visits %d", c.CheapVisits, c.Visits)
	case c.FullSearchProb < 0 || c.FullSearchProb > 1:
		return fmt.Errorf("selfplay: full_search_prob %v must lie in [0,1]", c.FullSearchProb)
	case c.ResignThreshold < 0 || c.ResignThreshold >= 1:
		return fmt.Errorf("selfplay: resign_threshold %v must lie in [0,1)", c.ResignThreshold)
	case c.NoResignShare > 1:
		return fmt.Errorf("selfplay: no_resign_share %v must be at most 1", c.NoResignShare)
	case c.RootSearch != "" && c.RootSearch != "gumbel":
		return fmt.Errorf("selfplay: root_search %q must be puct or gumbel", c.RootSearch)
	case c.ForcedPlayoutsK < 0 || c.ForcedPlayoutsK > 100 || math.IsNaN(c.ForcedPlayoutsK):
		return fmt.Errorf("selfplay: forced_playouts_k %v must lie in [0,100]", c.ForcedPlayoutsK)
	case c.ForcedPlayoutsK > 0 && c.Gumbel():
		return fmt.Errorf("selfplay: forced_playouts_k %v must be 0 with root_search gumbel", c.ForcedPlayoutsK)
	case c.PolicyTargetPruning && c.ForcedPlayoutsK == 0:
		return errors.New("selfplay: policy_target_pruning needs forced_playouts_k > 0")
	case c.GumbelM < 0 || c.GumbelM > rules.MaxMoves:
		return fmt.Errorf("selfplay: gumbel_m %d must lie in 1..%d", c.GumbelM, rules.MaxMoves)
	case c.GumbelCVisit < 0 || c.GumbelCScale < 0:
		return fmt.Errorf("selfplay: gumbel_c_visit %v and gumbel_c_scale %v must be positive", c.GumbelCVisit, c.GumbelCScale)
	}
	return nil
}

// Digest returns a hex SHA-256 of c with defaults filled in, so that equal
// settings give equal digests however they were written.
func (c Config) Digest() string {
	b, err := json.Marshal(c.WithDefaults())
	if err != nil {
		panic(err) // a struct of numbers always marshals
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// searchOptions returns the mcts options of c (defaults filled in).
func (c Config) searchOptions() mcts.Options {
	fpu := c.FPUReduction
	if fpu == 0 {
		fpu = -1 // none; mcts reads 0 as its default
	}
	o := mcts.Options{
		CPuct:             c.CPuct,
		FPUReduction:      fpu,
		DirichletAlpha:    c.DirichletAlpha,
		DirichletFraction: c.DirichletFraction,
		MaxPlies:          c.MaxPlies,
		Parallel:          c.LeavesInFlight,
		Solver:            c.Solver,
		PassForced:        c.PassForced,
		ForcedPlayoutsK:   c.ForcedPlayoutsK,
		Gumbel:            c.Gumbel(),
		GumbelM:           c.GumbelM,
		GumbelCVisit:      c.GumbelCVisit,
		GumbelCScale:      c.GumbelCScale,
	}
	if c.TemperaturePlies > 0 {
		o.Temperature = mcts.TemperatureSchedule(c.TemperaturePlies, 1, 0)
	}
	return o
}
