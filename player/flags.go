package player

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"time"

	"dama/arena"
	"dama/engine"
	"dama/internal/timeflag"
	"dama/model/infer"
	"dama/tactics"
)

// Flags are a player's flags on a command's flag set (AddFlags); once the
// flags are parsed, Spec and Env read them.
type Flags struct {
	fs    *flag.FlagSet
	def   Search
	names map[string]bool

	model, backend, tables, hybrids string
	visits, batch, threads          int
	cache, treeMB                   int
	ptemp                           float64
	time                            time.Duration
	pass                            bool
	clock                           string
}

// AddFlags declares on fs the flags of the settings named (a Setting's
// Flag: "model", "visits", "time", "batch", "threads", "pass-forced",
// "policy-temp", "hybrids", "tb", "tree-mb", "cache", "backend", "clock"),
// each with its Meaning as its help text and def's value as its default.
// It panics on a name Settings does not list.
func AddFlags(fs *flag.FlagSet, def Search, names ...string) *Flags {
	f := &Flags{fs: fs, def: def, names: map[string]bool{}, clock: ClockWall}
	for _, name := range names {
		st := setting(name)
		if st.Flag != name {
			panic("player: no flag " + name)
		}
		f.names[name] = true
		help := st.Meaning
		switch name {
		case "model":
			fs.StringVar(&f.model, name, "", help+" (default shipped)")
		case "visits":
			fs.IntVar(&f.visits, name, def.Visits, help+" (0: no visit limit; then --time must be set)")
		case "time":
			timeflag.Var(fs, &f.time, name, def.Time, help+" (0: no time limit)")
		case "batch":
			fs.IntVar(&f.batch, name, max(def.Batch, 1), help)
		case "threads":
			fs.IntVar(&f.threads, name, max(def.Threads, 1), help)
		case "pass-forced":
			fs.BoolVar(&f.pass, name, def.Pass, help)
		case "policy-temp":
			t := def.PolicyTemp
			if t == 0 {
				t = 1 // as given
			}
			fs.Float64Var(&f.ptemp, name, t, help+" (1: the priors as given)")
		case "hybrids":
			fs.StringVar(&f.hybrids, name, def.Hybrids.String(), help)
		case "tb":
			fs.StringVar(&f.tables, name, def.Tables, help+": "+st.Range)
		case "tree-mb":
			fs.IntVar(&f.treeMB, name, treeMB(def.TreeMB), help)
		case "cache":
			fs.IntVar(&f.cache, name, DefaultCache, help)
		case "backend":
			fs.StringVar(&f.backend, name, "auto", help+"; one of "+fmt.Sprint(infer.BackendNames()))
		case "clock":
			fs.Func(name, help+" (default "+ClockWall+")", func(s string) error {
				switch s {
				case ClockWall:
				case ClockCPU:
					if err := arena.CheckCPUClock(); err != nil {
						return err
					}
				default:
					return fmt.Errorf("want %s or %s", ClockWall, ClockCPU)
				}
				f.clock = s
				return nil
			})
		}
	}
	return f
}

// AddEngineFlags declares on fs the flags of the engine commands (hub,
// play, analyze): the Engine default's search, its network and its
// backend. hub says they serve the Hub engine, where --visits, --time and
// --threads apply only when the GUI sets no level.
func AddEngineFlags(fs *flag.FlagSet, hub bool) *Flags {
	f := AddFlags(fs, Engine(), "model", "visits", "time", "batch", "threads", "cache", "tree-mb", "backend", "pass-forced", "tb", "hybrids", "policy-temp")
	fs.Lookup("pass-forced").Usage += "; --pass-forced=false searches as training does"
	fs.Lookup("policy-temp").Usage += "; an arena player's +ptX"
	fs.Lookup("batch").Usage += "; an arena player's +batchN"
	if hub {
		for _, name := range []string{"visits", "time", "threads"} {
			fs.Lookup(name).Usage += "; used when the GUI sets no level"
		}
	}
	return f
}

// AddLadderFlags declares on fs the flags of a model rated on the ladder
// (dama ladder): its checkpoint, and its search as LadderDefault unless
// they say otherwise, with the tables, backend and clock of its games.
func AddLadderFlags(fs *flag.FlagSet) *Flags {
	f := AddFlags(fs, LadderDefault(), "model", "visits", "time", "batch", "threads", "pass-forced", "policy-temp", "hybrids", "tb", "backend", "clock")
	fs.Lookup("model").Usage = "checkpoint to rate (MCTS with the network), or a run folder (its best model)"
	for _, name := range []string{"visits", "time", "batch", "threads", "pass-forced", "policy-temp", "hybrids", "tb"} {
		fs.Lookup(name).Usage = "the model's search: " + fs.Lookup(name).Usage
	}
	fs.Lookup("time").Usage += "; keep --parallel at most the free cores"
	fs.Lookup("threads").Usage += "; keep threads x --parallel at most the free cores"
	return f
}

// treeMB is the --tree-mb default of a tree of mb MB, 0: the default
// node cap's.
func treeMB(mb int) int {
	if mb > 0 {
		return mb
	}
	return engine.TreeMB(0)
}

// Ranges returns the settings of the numeric flags AddFlags declared, so
// that a command checks their ranges with its other flags'.
func (f *Flags) Ranges() []Setting {
	var out []Setting
	for _, s := range Settings() {
		if f.names[s.Flag] && (s.Lo != 0 || s.Hi != 0) {
			out = append(out, s)
		}
	}
	return out
}

// given reports whether the flag name was set on the command line.
func (f *Flags) given(name string) bool {
	set := false
	f.fs.Visit(func(fl *flag.Flag) { set = set || fl.Name == name })
	return set
}

// Spec returns the network player the flags describe, their default's
// settings where a flag was not given, each flag checked (an error names
// the flag); warnings (more threads than cores) go to log. A time given
// without --visits is the limit, the visits unlimited.
func (f *Flags) Spec(log io.Writer) (Spec, error) {
	s := f.def
	sp := Spec{Model: f.model}
	if isHubSpec(f.model) {
		h, err := parseHub(f.model, false)
		if err != nil {
			return Spec{}, fmt.Errorf("--model: %w", err)
		}
		sp = Spec{Hub: h.Hub}
	}
	if f.names["backend"] {
		if _, err := infer.ResolveBackend(f.backend); err != nil {
			return Spec{}, fmt.Errorf("--backend: %w", err)
		}
		if f.given("backend") {
			sp.Backend = f.backend
		}
	}
	if f.given("visits") {
		if f.visits < 0 || f.visits > MaxFlagVisits {
			return Spec{}, fmt.Errorf("--visits %d: want 0..%d", f.visits, MaxFlagVisits)
		}
		s.Visits = f.visits
	}
	if f.given("time") {
		if d := f.time; d > time.Duration(MaxFlagTime*float64(time.Second)) || d > 0 && d < time.Millisecond {
			return Spec{}, fmt.Errorf("--time %s: want 0 (no time limit) or 0.001..%s seconds", f.fs.Lookup("time").Value, strconv.FormatFloat(MaxFlagTime, 'f', -1, 64))
		}
		s.Time = f.time
		if s.Time > 0 && !f.given("visits") {
			s.Visits = 0 // the time the user set is the limit; with --visits too, the first reached
		}
	}
	if s.Visits == 0 && s.Time == 0 {
		return Spec{}, errNoLimit
	}
	if f.given("batch") {
		if f.batch < 1 || f.batch > MaxBatch {
			return Spec{}, fmt.Errorf("--batch %d out of range [1, %d]", f.batch, MaxBatch)
		}
		s.Batch = f.batch
	}
	if f.names["threads"] {
		warning, err := engine.CheckThreads(f.threads)
		if err != nil {
			return Spec{}, fmt.Errorf("--threads: %w", err)
		}
		Env{Log: log}.warn(warning)
		if f.given("threads") {
			s.Threads = f.threads
		}
	}
	if f.given("pass-forced") {
		s.Pass = f.pass
	}
	if f.given("policy-temp") {
		s.PolicyTemp = f.ptemp
	}
	if f.given("hybrids") {
		h, err := tactics.ParseHybrids(f.hybrids)
		if err != nil {
			return Spec{}, fmt.Errorf("--hybrids %q: %w (or none)", f.hybrids, err)
		}
		s.Hybrids = h
	}
	if f.given("tb") {
		s.Tables = f.tables
	}
	if f.given("tree-mb") {
		s.TreeMB = f.treeMB
	}
	sp.Search = s
	if err := s.Check(); err != nil {
		return Spec{}, err
	}
	return sp, nil
}

// Open reads the flags (Spec, and Env for one game at a time, its lines
// on log) and opens the network they describe.
func (f *Flags) Open(log io.Writer) (*Network, error) {
	spec, err := f.Spec(log)
	if err != nil {
		return nil, err
	}
	env, err := f.Env(0, log)
	if err != nil {
		return nil, err
	}
	return spec.Open(env)
}

// Env returns what the flags give all the command's players: --backend,
// --tb, --clock and --cache (DefaultCache where the command has no
// --cache), for games at once, its lines on log.
func (f *Flags) Env(games int, log io.Writer) (Env, error) {
	e := Env{Tables: f.tables, CPUClock: f.clock == ClockCPU, Cache: DefaultCache, Games: games, Log: log}
	if f.names["backend"] {
		if _, err := infer.ResolveBackend(f.backend); err != nil {
			return Env{}, fmt.Errorf("--backend: %w", err)
		}
		e.Backend = f.backend
	}
	if f.names["cache"] {
		e.Cache = f.cache
	}
	return e, nil
}
