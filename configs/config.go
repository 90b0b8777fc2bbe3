// Package configs is the configuration of a training run: the network, the
// self-play, the training and the arena that gates new networks, with a
// documented default for every field, two embedded presets (quick.yaml and
// workstation.yaml), loading through viper from a file (or an overlay: a
// file with a base and only the keys that differ, see BaseKey), DAMA_
// environment variables and key=value overrides, and validation that names
// the field, the bad value and the allowed range before any work starts.
package configs

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// Version is the version of the configuration format, written as the
// top-level key "version".
const Version = 1

// Config is the whole configuration of a training run. Keys in YAML, in
// overrides and in environment variables are the lower-case snake_case
// names given in the tags, dotted by section ("selfplay.visits",
// DAMA_SELFPLAY_VISITS).
type Config struct {
	// Version of the format; must be 1. Default 1.
	Version  int      `mapstructure:"version" yaml:"version"`
	Run      Run      `mapstructure:"run" yaml:"run"`
	Model    Model    `mapstructure:"model" yaml:"model"`
	SelfPlay SelfPlay `mapstructure:"selfplay" yaml:"selfplay"`
	Train    Train    `mapstructure:"train" yaml:"train"`
	Arena    Arena    `mapstructure:"arena" yaml:"arena"`
	Ladder   Ladder   `mapstructure:"ladder" yaml:"ladder"`
	// Schedule holds the phases of the run: the values keys take from a
	// generation on (see ScheduleKey). Empty: the keys hold for the whole
	// run. Omitted from the YAML while empty, so configurations without
	// one archive and digest as before schedules existed.
	Schedule []Phase `mapstructure:"-" yaml:"schedule,omitempty"`
}

// Run holds what identifies and drives the run as a whole.
type Run struct {
	// Name of the run, used in logs and as the default folder name:
	// letters, digits, '.', '_' and '-', at most 64. Default "dama".
	Name string `mapstructure:"name" yaml:"name"`
	// Seed of every random choice of the run. With self-play in the
	// trainer's process (the default) a run repeats from its config and
	// seed on one machine with the same run.workers and backend: the same
	// games (written in the order of their indices), replay windows,
	// training and threshold gating verdicts. Not repeated: games from
	// other processes (dama selfplay worker, a broker; a generation takes
	// the chunks waiting), games after a stop during self-play, the counts
	// of a gate that stops early and an SPRT gate's verdict when
	// arena.parallel > 1, and timings. Default 1.
	Seed int64 `mapstructure:"seed" yaml:"seed"`
	// Workers is the number of CPU threads for search and training,
	// 0..4096; 0 means all CPUs. Default 0.
	Workers int `mapstructure:"workers" yaml:"workers"`
	// Generations is the number of generations (self-play, training,
	// arena) after which dama train stops, 0..10^6; 0 runs until
	// interrupted. Default 0.
	Generations int `mapstructure:"generations" yaml:"generations"`
}

// ModelPresets are the network presets known to package model
// (model.Preset); model.preset must be one of them.
var ModelPresets = []string{"tiny", "small", "workstation"}

// Model chooses the network. A zero size field takes the preset's value.
type Model struct {
	// Preset is the base architecture: tiny, small or workstation.
	// Default "small".
	Preset string `mapstructure:"preset" yaml:"preset"`
	// Blocks is the number of residual blocks, 0..40 (MaxBlocks); 0 keeps
	// the preset's. Default 0.
	Blocks int `mapstructure:"blocks" yaml:"blocks"`
	// Filters is the width of the residual tower, 0..512 (MaxFilters);
	// 0 keeps the preset's. Default 0.
	Filters int `mapstructure:"filters" yaml:"filters"`
	// PolicyFilters is the width of the policy head, 0..128
	// (MaxHeadFilters); 0 keeps the preset's. Default 0.
	PolicyFilters int `mapstructure:"policy_filters" yaml:"policy_filters"`
	// ValueFilters is the width of the value head's convolution, 0..128
	// (MaxHeadFilters); 0 keeps the preset's. Default 0.
	ValueFilters int `mapstructure:"value_filters" yaml:"value_filters"`
	// ValueHidden is the size of the value head's hidden layer, 0..1024
	// (MaxValueHidden); 0 keeps the preset's. Default 0.
	ValueHidden int `mapstructure:"value_hidden" yaml:"value_hidden"`
}

// SelfPlay configures the games that make training data. Package selfplay
// plays by it as it is (selfplay.Config), and maps it to the options of the
// search and the network evaluator in one place (selfplay.SearchOptions,
// MatchOptions, EvaluatorOptions). A zero field is off, or none, for every
// optional technique and every amount that may be zero: 0 means the same
// from the YAML key to the search.
type SelfPlay struct {
	// GamesPerGeneration is the number of games played with each best
	// network before the trainer takes a step forward, 1..10^7. Default 500.
	GamesPerGeneration int `mapstructure:"games_per_generation" yaml:"games_per_generation"`
	// Parallel is the number of games in flight at once, sharing one
	// evaluator and keeping its batches full, 1..4096. Default 32.
	Parallel int `mapstructure:"parallel" yaml:"parallel"`
	// LeavesInFlight is the number of leaves one search evaluates at once
	// (with virtual loss), 1..256. Default 1.
	LeavesInFlight int `mapstructure:"leaves_in_flight" yaml:"leaves_in_flight"`
	// Visits is the number of MCTS visits per move (a full search),
	// 1..10^6. Default 200.
	Visits int `mapstructure:"visits" yaml:"visits"`
	// CPuct is the PUCT exploration constant, (0,100]. Default 1.5.
	CPuct float64 `mapstructure:"cpuct" yaml:"cpuct"`
	// FPUReduction is the first-play urgency: an unvisited child is valued
	// at its parent's value minus this (mcts.Options.FPUReduction), [0,2];
	// 0 = none, the parent's value. Default 0.25.
	FPUReduction float64 `mapstructure:"fpu_reduction" yaml:"fpu_reduction"`
	// PolicyTemp is the temperature of the network's priors in self-play's
	// searches (mcts.Options.PolicyTemperature): above 1 flattens them, so
	// that a search looks at more moves; 0 (or 1) = the priors as the
	// network gives them, else [0.1,10]. The engine commands play with
	// 1.8 (docs/rating.md#tuning-the-search-for-play); gating and ladder
	// games search without it. Default 0.
	PolicyTemp float64 `mapstructure:"policy_temp" yaml:"policy_temp,omitempty"`
	// DirichletAlpha is the concentration of the root noise, (0,10]; about
	// 10 / the typical number of legal moves (~8 in Italian draughts).
	// Default 1.0.
	DirichletAlpha float64 `mapstructure:"dirichlet_alpha" yaml:"dirichlet_alpha"`
	// DirichletFraction is the weight of the noise in the root priors,
	// [0,1); 0 disables noise. Default 0.25.
	DirichletFraction float64 `mapstructure:"dirichlet_fraction" yaml:"dirichlet_fraction"`
	// TemperaturePlies is the number of opening plies whose move is drawn
	// in proportion to the visit counts (temperature 1); later moves take
	// the most visited child, 0..1000. Default 16.
	TemperaturePlies int `mapstructure:"temperature_plies" yaml:"temperature_plies"`
	// MaxPlies caps a game; a game reaching it is adjudicated a draw,
	// 1..10000. Default 300.
	MaxPlies int `mapstructure:"max_plies" yaml:"max_plies"`
	// CheapVisits enables playout cap randomisation (KataGo): a move gets a
	// full search (Visits, root noise, a policy target) with probability
	// FullSearchProb and otherwise a cheap search of CheapVisits visits
	// without noise, not a policy target. 0 disables it (every move full);
	// otherwise 1..Visits-1. Default 0.
	CheapVisits int `mapstructure:"cheap_visits" yaml:"cheap_visits"`
	// FullSearchProb is the probability of a full search when CheapVisits
	// is set, (0,1]. Default 0.25.
	FullSearchProb float64 `mapstructure:"full_search_prob" yaml:"full_search_prob"`
	// ResignThreshold: a side resigns when the root expected score
	// (win + draw/2) of its searches stays below this for ResignMoves of its
	// moves in a row, [0,0.5); 0 disables resignation (a typical value is
	// 0.05). Default 0.
	ResignThreshold float64 `mapstructure:"resign_threshold" yaml:"resign_threshold"`
	// ResignMoves is the number of consecutive own moves below the
	// threshold before resigning, 1..100. Default 3.
	ResignMoves int `mapstructure:"resign_moves" yaml:"resign_moves"`
	// NoResignShare is the share of games that never resign, played out to
	// measure false resignations, [0,1]. Default 0.1.
	NoResignShare float64 `mapstructure:"no_resign_share" yaml:"no_resign_share"`
	// EvalBatch is the largest batch of positions the network evaluates at
	// once, 1..4096. Default 32.
	EvalBatch int `mapstructure:"eval_batch" yaml:"eval_batch"`
	// EvalWorkers is the number of goroutines running forward passes, each
	// on its own core, 0..256; 0 means one per CPU thread the run may use
	// (run.workers). Default 0.
	EvalWorkers int `mapstructure:"eval_workers" yaml:"eval_workers"`
	// CacheSize is the number of evaluations kept by position hash,
	// 0..10^8; 0 disables the cache. Default 200000.
	CacheSize int `mapstructure:"cache_size" yaml:"cache_size"`
	// Backend is the network's forward pass in self-play, gating and
	// ladder games: "auto" (int8 where an amd64 CPU has AVX2, else
	// fp32), "fp32", "bf16" (needs AVX512_BF16) or "int8" (needs AVX2 or
	// FEAT_DotProd).
	// Default "auto".
	Backend string `mapstructure:"backend" yaml:"backend"`
	// PassForced searches past positions with one legal move without
	// evaluating them (mcts.Options.PassForced), in self-play, gating and
	// the run's ladder. Default false.
	PassForced bool `mapstructure:"pass_forced" yaml:"pass_forced"`
	// Tables is a folder of endgame tables (dama tb gen) that self-play
	// searches ask at every new leaf (mcts.Options.Oracle): a position in
	// them is a proven node with its exact value under the 40-move rule.
	// A game ends as soon as its position is in them, with their result
	// (a table adjudication), and training gives every position in them
	// its exact value target. Opened and checked when self-play and the
	// trainer start. "auto:N", N in 2..4, asks for the tables of up to N
	// pieces, generated where they are opened into a cache folder of the
	// user's (tb.CacheDir; seconds, once per machine; more pieces: dama
	// tb gen and the folder); "" = none. Default "".
	Tables string `mapstructure:"tables" yaml:"tables,omitempty"`
	// Hybrids are the MCTS-minimax hybrids of package tactics that
	// self-play searches with, in the syntax of dama play's --hybrids
	// (tactics.ParseHybrids): "" or "none" for none, else a comma-separated
	// list of mm[DEPTH] (the Minimax oracle proves wins and losses at new
	// leaves, with the solver on so that its proofs go up the tree),
	// cmb[DEPTH] (the Combinations evaluator: a material search at leaves
	// moves the network's value) and ip[DEPTH] (the Priors evaluator:
	// informed priors for winning moves), each at most once, DEPTH in
	// 1..8. Not the verifier ab: self-play searches by visits, and an
	// alpha-beta search per move would cost more than the game. Gating
	// and ladder games search without them, as without the tables.
	// configs keeps the text as it is: package selfplay,
	// which reads it, checks it (selfplay.ValidateSettings, before any
	// game of the trainer and the workers). Default "".
	Hybrids string `mapstructure:"hybrids" yaml:"hybrids,omitempty"`
}

// AutoTablesPrefix starts a selfplay.tables value that asks for generated
// tables ("auto:4") instead of naming a folder.
const AutoTablesPrefix = "auto:"

// MaxAutoTablePieces is the most pieces of selfplay.tables "auto:N": the
// tables of up to 4 pieces take some 10 CPU-seconds to generate, those of
// 5 some 4 CPU-minutes (dama tb gen).
const MaxAutoTablePieces = 4

// AutoTables reports whether s.Tables asks for generated tables (it starts
// with AutoTablesPrefix) and of up to how many pieces: 0 when the number
// is not one of 2..MaxAutoTablePieces (Validate names it).
func (s SelfPlay) AutoTables() (pieces int, ok bool) {
	return ParseAutoTables(s.Tables, MaxAutoTablePieces)
}

// ParseAutoTables reports whether s asks for generated tables ("auto:N")
// and of up to how many pieces: 0 when N is not one of 2..most.
func ParseAutoTables(s string, most int) (pieces int, ok bool) {
	rest, ok := strings.CutPrefix(s, AutoTablesPrefix)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n < 2 || n > most || strconv.Itoa(n) != rest {
		return 0, true
	}
	return n, true
}

// Backends are the allowed values of selfplay.backend (the names the
// model package registers; a test keeps the two lists equal).
var Backends = []string{"auto", "bf16", "fp32", "int8"}

// Train configures the optimisation of the network.
type Train struct {
	// Batch is the number of samples per training step, 2..65536 (batch
	// normalisation needs two). Default 256.
	Batch int `mapstructure:"batch" yaml:"batch"`
	// Optimizer is "adam" or "sgd" (with momentum). Default "adam".
	Optimizer string `mapstructure:"optimizer" yaml:"optimizer"`
	// Momentum of SGD, [0,1); 0 = plain SGD. Default 0.9.
	Momentum float64 `mapstructure:"momentum" yaml:"momentum"`
	// LR is the peak learning rate, (0,10]; about 0.001 for Adam, 0.02 for
	// SGD. Default 0.001.
	LR float64 `mapstructure:"lr" yaml:"lr"`
	// LRSchedule is how the learning rate changes after the warm-up
	// (learn.TrainOptions.RateAt): "constant"; "step" (times LRDecayFactor
	// every LRDecaySteps steps); "cosine" (from LR down to LRMin over
	// LRDecaySteps steps, then LRMin). Default "constant".
	LRSchedule string `mapstructure:"lr_schedule" yaml:"lr_schedule"`
	// LRWarmupSteps is the number of an optimizer's first steps over which
	// the rate grows linearly from 0 to LR (again when a fresh optimizer
	// starts on a trained network, as after --init from a checkpoint
	// without optimizer state), 0..10^9. Default 100.
	LRWarmupSteps int64 `mapstructure:"lr_warmup_steps" yaml:"lr_warmup_steps"`
	// LRDecaySteps is the period of the step schedule and the length of the
	// cosine one (learn.TrainOptions DecaySteps and TotalSteps),
	// 1..10^12. Default 50000.
	LRDecaySteps int64 `mapstructure:"lr_decay_steps" yaml:"lr_decay_steps"`
	// LRDecayFactor multiplies the rate at each step of the step schedule,
	// (0,1]. Default 0.1.
	LRDecayFactor float64 `mapstructure:"lr_decay_factor" yaml:"lr_decay_factor"`
	// LRMin is the end of the cosine schedule, [0,LR]. Default 0.00001.
	LRMin float64 `mapstructure:"lr_min" yaml:"lr_min"`
	// WeightDecay is the L2 coefficient on the weights, [0,1].
	// Default 0.0001.
	WeightDecay float64 `mapstructure:"weight_decay" yaml:"weight_decay"`
	// WindowMin is the smallest replay window, in samples; training starts
	// once this many samples exist, 1..10^9. Default 20000.
	WindowMin int64 `mapstructure:"window_min" yaml:"window_min"`
	// WindowMax is the largest replay window, WindowMin..10^10.
	// Default 500000.
	WindowMax int64 `mapstructure:"window_max" yaml:"window_max"`
	// WindowGrowth is the fraction of the samples beyond WindowMin by which
	// the window grows: window = WindowMin + WindowGrowth*(total-WindowMin),
	// kept within [WindowMin, WindowMax], [0,1]. Default 0.5.
	WindowGrowth float64 `mapstructure:"window_growth" yaml:"window_growth"`
	// SamplesPerNewSample is the number of samples trained on for each new
	// self-play sample (how often, on average, a sample is seen),
	// (0,1000]. Default 4.
	SamplesPerNewSample float64 `mapstructure:"samples_per_new_sample" yaml:"samples_per_new_sample"`
	// StepsPerGeneration fixes the training steps per generation;
	// 0 derives them from SamplesPerNewSample (see Steps), 0..10^9.
	// Default 0.
	StepsPerGeneration int `mapstructure:"steps_per_generation" yaml:"steps_per_generation"`
	// ValueTargetMix m mixes the root search's WDL of each position into
	// its value target: (1-m) * game result + m * search WDL, [0,1];
	// 0 = the game result alone. Default 0.
	ValueTargetMix float64 `mapstructure:"value_target_mix" yaml:"value_target_mix"`
}

// gatingModes are the allowed values of arena.gating.
var gatingModes = []string{"sprt", "threshold", "none"}

// Arena configures the match between a candidate and the best network.
type Arena struct {
	// Games is the most games of a gating match, even (each opening is
	// played with both colours), 2..10^6. Default 200.
	Games int `mapstructure:"games" yaml:"games"`
	// Parallel is the number of games played at once, 1..4096. Default 32.
	Parallel int `mapstructure:"parallel" yaml:"parallel"`
	// Visits is the number of MCTS visits per move, without noise,
	// 1..10^6. Default 200.
	Visits int `mapstructure:"visits" yaml:"visits"`
	// OpeningPlies is the number of random plies from the start that make
	// each opening, 1..100. Default 6.
	OpeningPlies int `mapstructure:"opening_plies" yaml:"opening_plies"`
	// MaxPlies caps a game, adjudicated a draw, 1..10000. Default 300.
	MaxPlies int `mapstructure:"max_plies" yaml:"max_plies"`
	// Gating decides acceptance: "sprt" (stop as soon as the SPRT of Elo0
	// against Elo1 decides; an undecided match rejects), "threshold"
	// (accept when the score over all games is at least Threshold; the
	// match stops once the games left cannot change that) or
	// "none" (always accept, as AlphaZero). Default "sprt".
	Gating string `mapstructure:"gating" yaml:"gating"`
	// Elo0 is the SPRT's null hypothesis in Elo, [-1000,1000), below Elo1.
	// Default 0.
	Elo0 float64 `mapstructure:"elo0" yaml:"elo0"`
	// Elo1 is the SPRT's alternative hypothesis in Elo, (Elo0,1000].
	// Default 30.
	Elo1 float64 `mapstructure:"elo1" yaml:"elo1"`
	// Alpha is the SPRT's chance of accepting under Elo0, (0,0.5].
	// Default 0.05.
	Alpha float64 `mapstructure:"alpha" yaml:"alpha"`
	// Beta is the SPRT's chance of rejecting under Elo1, (0,0.5].
	// Default 0.05.
	Beta float64 `mapstructure:"beta" yaml:"beta"`
	// Threshold is the score (draws half) that accepts in threshold mode,
	// (0,1]. Default 0.55.
	Threshold float64 `mapstructure:"threshold" yaml:"threshold"`
}

// Ladder configures the absolute rating of the best model during a run:
// every Every generations it plays the ladder of reference players (see
// dama ladder) and the rating goes to ladder.jsonl, which dama report plots
// against CPU-hours and games played.
type Ladder struct {
	// Every rates the best model every Every generations (when it has not
	// been rated yet), 0..10^6; 0 = never. Default 0.
	Every int `mapstructure:"every" yaml:"every"`
	// Visits is the model's MCTS visits per move on the ladder, 1..10^6.
	// Default 800.
	Visits int `mapstructure:"visits" yaml:"visits"`
	// Games is the number of ladder games, even, 2..10^6 (at least two per
	// rung). Default 100.
	Games int `mapstructure:"games" yaml:"games"`
	// Parallel is the number of ladder games played at once, 1..4096.
	// Default 16.
	Parallel int `mapstructure:"parallel" yaml:"parallel"`
	// File is a ladder file to rate on instead of the one built in
	// (arena/ladder.json); "" = built in. Default "".
	File string `mapstructure:"file" yaml:"file"`
}

// The range of a temperature of the network's priors (selfplay.policy_temp,
// and the engine commands' --policy-temp and an arena player's +ptX).
const (
	MinPolicyTemp = 0.1
	MaxPolicyTemp = 10
)

// LaterKeys are the keys added to format version 1 after run folders were
// first archived with it. An archived configuration written before a key
// existed lacks its line; the key reads as its default, which is what the
// version that wrote the archive did.
var LaterKeys = []string{
	"run.generations",
	"selfplay.eval_workers", "selfplay.backend", "selfplay.pass_forced",
	"selfplay.tables", "selfplay.hybrids", "selfplay.policy_temp",
	"train.value_target_mix",
	"ladder.every", "ladder.visits", "ladder.games", "ladder.parallel", "ladder.file",
}

// Default returns the documented default of every field.
func Default() Config {
	return Config{
		Version: Version,
		Run:     Run{Name: "dama", Seed: 1, Workers: 0},
		Model:   Model{Preset: "small"},
		SelfPlay: SelfPlay{
			GamesPerGeneration: 500,
			Parallel:           32,
			LeavesInFlight:     1,
			Visits:             200,
			CPuct:              1.5,
			FPUReduction:       0.25,
			DirichletAlpha:     1.0,
			DirichletFraction:  0.25,
			TemperaturePlies:   16,
			MaxPlies:           300,
			CheapVisits:        0,
			FullSearchProb:     0.25,
			ResignThreshold:    0,
			ResignMoves:        3,
			NoResignShare:      0.1,
			EvalBatch:          32,
			CacheSize:          200000,
			Backend:            "auto",
		},
		Train: Train{
			Batch:               256,
			Optimizer:           "adam",
			Momentum:            0.9,
			LR:                  0.001,
			LRSchedule:          "constant",
			LRWarmupSteps:       100,
			LRDecaySteps:        50000,
			LRDecayFactor:       0.1,
			LRMin:               0.00001,
			WeightDecay:         0.0001,
			WindowMin:           20000,
			WindowMax:           500000,
			WindowGrowth:        0.5,
			SamplesPerNewSample: 4,
			StepsPerGeneration:  0,
		},
		Arena: Arena{
			Games:        200,
			Parallel:     32,
			Visits:       200,
			OpeningPlies: 6,
			MaxPlies:     300,
			Gating:       "sprt",
			Elo0:         0,
			Elo1:         30,
			Alpha:        0.05,
			Beta:         0.05,
			Threshold:    0.55,
		},
		Ladder: Ladder{Every: 0, Visits: 800, Games: 100, Parallel: 16},
	}
}

// YAML returns the configuration as YAML, every key present, for archiving
// the effective configuration in a run folder. Load reads it back to an
// equal Config.
func (c *Config) YAML() ([]byte, error) {
	b, err := yaml.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("configs: encoding YAML: %w", err)
	}
	return b, nil
}

// Digest returns the hex SHA-256 of YAML() with the removed keys at their
// off values (digestForm, see removedKeys): equal configurations have
// equal digests, and a configuration keeps the digest it had before a key
// was removed.
func (c *Config) Digest() string {
	b, err := c.digestForm()
	if err != nil {
		// A Config holds only strings and numbers, and a test holds every
		// removed key's place (removedKeys): this cannot fail.
		return "invalid"
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Window returns the replay window in samples when total samples have been
// produced: WindowMin + WindowGrowth*(total-WindowMin), within
// [WindowMin, WindowMax].
func (t Train) Window(total int64) int64 {
	w := t.WindowMin
	if total > t.WindowMin {
		w += int64(t.WindowGrowth * float64(total-t.WindowMin))
	}
	return min(max(w, t.WindowMin), t.WindowMax)
}

// Steps returns the training steps for a generation that produced
// newSamples samples: StepsPerGeneration when set, else
// ceil(newSamples*SamplesPerNewSample/Batch), at least 1 when newSamples > 0.
func (t Train) Steps(newSamples int) int {
	if t.StepsPerGeneration > 0 {
		return t.StepsPerGeneration
	}
	if newSamples <= 0 || t.Batch <= 0 {
		return 0
	}
	return max(1, int(math.Ceil(float64(newSamples)*t.SamplesPerNewSample/float64(t.Batch))))
}
