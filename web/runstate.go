package web

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"time"

	"dama/configs"
	"dama/report"
	"dama/runfolder"
)

// readSections reads the run folder (through report.Load, and idx for
// the chunks) into the JSON sections of the run page.
func readSections(run *runfolder.Run, idx *gameIndex) (map[string][]byte, error) {
	rep, err := report.Load(run)
	if err != nil {
		return nil, err
	}
	cfgText, err := os.ReadFile(run.Path(runfolder.ConfigFile))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	quar, err := quarantineList(run)
	if err != nil {
		return nil, err
	}
	workers, err := workersOf(run, idx)
	if err != nil {
		return nil, err
	}
	games, err := gamesOf(run, idx)
	if err != nil {
		return nil, err
	}
	best, _ := run.Best()
	vals := map[string]any{
		"summary":     summaryOf(run, rep, best),
		"progress":    rep.Progress,
		"generations": generationsOf(rep),
		"losses":      lossesOf(rep),
		"arena":       arenaOf(rep),
		"ladder":      ladderOf(rep),
		"times":       timesOf(rep),
		"config":      configView{Text: string(cfgText), Changes: rep.Changes},
		"chunks":      chunksView{Waiting: rep.Waiting, Quarantined: rep.Quarantined, List: quar},
		"workers":     workers,
		"games":       games,
	}
	out := map[string][]byte{}
	for _, name := range sectionNames {
		b, err := jsonBytes(vals[name])
		if err != nil {
			return nil, err
		}
		out[name] = b
	}
	return out, nil
}

// jsonBytes marshals v; its floats are num, so NaN and infinities (a
// match without games) are written as null.
func jsonBytes(v any) ([]byte, error) { return json.Marshal(v) }

// num is a float64 that marshals NaN and infinities as null.
type num float64

func (n num) MarshalJSON() ([]byte, error) {
	f := float64(n)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(f)
}

type summaryView struct {
	Dir         string    `json:"dir"`
	Name        string    `json:"name"`
	Preset      string    `json:"preset"`
	Generations int       `json:"generations"` // completed
	Planned     int       `json:"planned"`     // run.generations, 0: until stopped
	Best        string    `json:"best"`
	BestElo     num       `json:"best_elo"`
	TotalGames  int       `json:"total_games"`
	Steps       int64     `json:"steps"`
	Samples     int64     `json:"samples"`
	LastStep    time.Time `json:"last_step"`
	Start       time.Time `json:"start"`
	Promotion   num       `json:"promotion"`
	PromoLabel  string    `json:"promotion_label"`
	Updated     time.Time `json:"updated"`
}

func summaryOf(run *runfolder.Run, rep *report.Report, best string) summaryView {
	v := summaryView{Dir: rep.Dir, Generations: len(rep.Generations), Best: best, Start: rep.Start,
		Promotion: num(rep.Promotion), PromoLabel: rep.PromotionLabel}
	if cfg, err := configs.Load(run.Path(runfolder.ConfigFile), nil, nil); err == nil {
		v.Name, v.Preset, v.Planned = cfg.Run.Name, cfg.Model.Preset, cfg.Run.Generations
	}
	if n := len(rep.Generations); n > 0 {
		g := rep.Generations[n-1]
		v.BestElo, v.TotalGames = num(g.BestChainElo), g.TotalGames
		v.Updated = g.Finished
	}
	if m := rep.LastMetric; m != nil {
		v.Steps, v.Samples, v.LastStep = m.Step, m.Samples, m.Time
		if m.Time.After(v.Updated) {
			v.Updated = m.Time
		}
	}
	return v
}

type generationView struct {
	Gen        int     `json:"gen"`
	Games      int     `json:"games"`
	Positions  int     `json:"positions"`
	Steps      int     `json:"steps"`
	PolicyLoss num     `json:"policy_loss"`
	ValueLoss  num     `json:"value_loss"`
	Wins       int     `json:"wins"`
	Draws      int     `json:"draws"`
	Losses     int     `json:"losses"`
	Score      num     `json:"score"`
	Elo        num     `json:"elo"`
	Promoted   bool    `json:"promoted"`
	Best       string  `json:"best"`
	ChainElo   num     `json:"chain_elo"`
	ChainErr   num     `json:"chain_err"`
	Minutes    float64 `json:"minutes"`
	// The generation's end on the other axes of the curves: training
	// steps so far, trainer CPU-hours so far, wall hours from the run's
	// start (null when unknown).
	StepEnd  int `json:"step_end"`
	CPUHours num `json:"cpu_hours"`
	Hours    num `json:"hours"`
}

func generationsOf(rep *report.Report) []generationView {
	out := []generationView{}
	steps, cpu := 0, 0.0
	for _, g := range rep.Generations {
		steps += g.Steps
		cpu += g.CPUSec / 3600
		v := generationView{
			Gen: g.Gen, Games: g.Games, Positions: g.Positions, Steps: g.Steps,
			PolicyLoss: num(g.PolicyLoss), ValueLoss: num(g.ValueLoss), Score: num(g.Score), Elo: num(g.Elo),
			Promoted: g.Promoted, Best: g.Best, ChainElo: num(g.BestChainElo), ChainErr: num(g.BestChainErr),
			Minutes: (g.SelfPlaySec + g.TrainSec + g.ArenaSec) / 60,
			StepEnd: steps, CPUHours: num(cpu), Hours: hoursSince(rep.Start, g.Finished),
		}
		if m := g.Match; m != nil {
			v.Wins, v.Draws, v.Losses = m.Wins, m.Draws, m.Losses
		}
		out = append(out, v)
	}
	return out
}

// lossesOf gives [step, policy, value, total, hours from the run's start]
// per bucket of steps.
func lossesOf(rep *report.Report) [][5]num {
	out := [][5]num{}
	for _, p := range rep.Losses {
		h := num(math.NaN())
		if p.Unix > 0 {
			h = hoursSince(rep.Start, time.Unix(0, int64(p.Unix*1e9)))
		}
		out = append(out, [5]num{num(p.Step), num(p.Policy), num(p.Value), num(p.Total), h})
	}
	return out
}

// hoursSince is the wall hours from start to t, null when either is
// unknown.
func hoursSince(start, t time.Time) num {
	if start.IsZero() || t.IsZero() {
		return num(math.NaN())
	}
	return num(t.Sub(start).Hours())
}

type arenaView struct {
	Promotion num         `json:"promotion"`
	Label     string      `json:"label"`
	Matches   []matchView `json:"matches"`
}

type matchView struct {
	Gen      int    `json:"gen"`
	Games    int    `json:"games"`
	Wins     int    `json:"wins"`
	Draws    int    `json:"draws"`
	Losses   int    `json:"losses"`
	Score    num    `json:"score"`
	Elo      num    `json:"elo"`
	Low      num    `json:"elo_lo"`
	High     num    `json:"elo_hi"`
	Verdict  string `json:"verdict"`
	Promoted bool   `json:"promoted"`
}

func arenaOf(rep *report.Report) arenaView {
	v := arenaView{Promotion: num(rep.Promotion), Label: rep.PromotionLabel, Matches: []matchView{}}
	for _, a := range rep.Arena {
		v.Matches = append(v.Matches, matchView{
			Gen: a.Gen, Games: a.Games, Wins: a.Wins, Draws: a.Draws, Losses: a.Losses,
			Score: num(a.Score), Elo: num(a.Elo), Low: num(a.EloLow), High: num(a.EloHigh),
			Verdict: a.Verdict, Promoted: a.Promoted,
		})
	}
	return v
}

type ladderView struct {
	Gen        int    `json:"gen"`
	Model      string `json:"model"`
	Visits     int    `json:"visits"`
	Games      int    `json:"games"`
	Elo        num    `json:"elo"`
	Low        num    `json:"low"`
	High       num    `json:"high"`
	Bound      string `json:"bound,omitempty"`
	CPUHours   num    `json:"cpu_hours"`
	TotalGames int    `json:"total_games"`
	Hours      num    `json:"hours"` // wall hours from the run's start to the rating
}

func ladderOf(rep *report.Report) []ladderView {
	out := []ladderView{}
	for _, l := range rep.Ladder {
		out = append(out, ladderView{
			Gen: l.Gen, Model: l.Model, Visits: l.Visits, Games: l.Games, Elo: num(l.Elo),
			Low: num(l.Low), High: num(l.High), Bound: l.Bound, CPUHours: num(l.CPUHours), TotalGames: l.TotalGames,
			Hours: hoursSince(rep.Start, l.Time),
		})
	}
	return out
}

// timesView is the wall time of each stage per generation, in seconds.
type timesView struct {
	Gens     []int     `json:"gens"`
	SelfPlay []float64 `json:"selfplay"`
	Train    []float64 `json:"train"`
	Gating   []float64 `json:"gating"`
	Ladder   []float64 `json:"ladder"`
}

func timesOf(rep *report.Report) timesView {
	ladder := map[int]float64{}
	for _, l := range rep.Ladder {
		ladder[l.Gen] = l.LadderSec
	}
	v := timesView{Gens: []int{}, SelfPlay: []float64{}, Train: []float64{}, Gating: []float64{}, Ladder: []float64{}}
	for _, g := range rep.Generations {
		v.Gens = append(v.Gens, g.Gen)
		v.SelfPlay = append(v.SelfPlay, g.SelfPlaySec)
		v.Train = append(v.Train, g.TrainSec)
		v.Gating = append(v.Gating, g.ArenaSec)
		v.Ladder = append(v.Ladder, ladder[g.Gen])
	}
	return v
}

type configView struct {
	Text    string                   `json:"text"`
	Changes []runfolder.ConfigChange `json:"changes"`
}

type chunksView struct {
	Waiting     int           `json:"waiting"`
	Quarantined int           `json:"quarantined"`
	List        []quarantined `json:"list"`
}

// gamesView says which games the run has, so that the games page lists
// again when new ones come: the self-play chunks seen (idx numbers every
// chunk once) and the generations whose gating match and ladder rating
// games are kept.
type gamesView struct {
	Chunks int   `json:"chunks"`
	Arena  []int `json:"arena"`
	Ladder []int `json:"ladder"`
}

func gamesOf(run *runfolder.Run, idx *gameIndex) (gamesView, error) {
	v := gamesView{Arena: []int{}, Ladder: []int{}}
	if err := idx.scan(); err != nil {
		return v, err
	}
	idx.mu.Lock()
	v.Chunks = len(idx.chunks)
	idx.mu.Unlock()
	for _, k := range []struct {
		kind runfolder.MatchKind
		dst  *[]int
	}{{runfolder.ArenaGames, &v.Arena}, {runfolder.LadderGames, &v.Ladder}} {
		gens, err := run.MatchGamesGens(k.kind)
		if err != nil {
			return v, err
		}
		*k.dst = append(*k.dst, gens...)
	}
	return v, nil
}
