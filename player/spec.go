package player

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"dama/arena"
	"dama/checkerboard"
	"dama/configs"
	"dama/engine"
	"dama/model"
	"dama/model/infer"
	"dama/tactics"
)

// Names of networks that are not files.
const (
	Shipped = "shipped" // the model shipped in the binary (checkpoints/shipped)
	Random  = "random"  // a uniform evaluator, no network (the engine commands' --model random)
)

// Spec is a player: a reference player of package arena (Ref), an
// external engine speaking the Hub protocol (Hub, its level Search's
// limits), or a network (Model) searched as Search says.
type Spec struct {
	// Ref is a reference player as arena.ParsePlayer reads it
	// ("classic:t0.25", "random"); "" for a network.
	Ref string
	// Hub is the command (program and arguments) of an external engine
	// speaking the Hub protocol (a "hub:COMMAND" spec); nil for others.
	Hub []string
	// Model is the network: a checkpoint file, a run folder (its best
	// model), Shipped ("" too) or Random.
	Model string
	// Checkpoint, if set, is the network itself, loaded already; Model
	// then only names it.
	Checkpoint *model.Checkpoint
	Search     Search
	Backend    string // the network's forward pass; "": the Env's
	Label      string // the player's name in results; "" for String's
}

// String returns the player's name: its Label, else the spec that reads
// back as s (its model's base name, its limits and the suffixes of its
// settings against Engine).
func (s Spec) String() string {
	switch {
	case s.Label != "":
		return s.Label
	case s.Ref != "":
		return s.Ref
	case s.IsHub():
		return s.hubName()
	}
	name := s.Model
	if name == "" {
		name = Shipped
	}
	name = filepath.Base(name)
	if lt := s.Search.limitText(); lt != "" {
		name += "@" + lt
	}
	name += s.Search.Suffixes(Engine())
	if s.Backend != "" {
		name += ":" + s.Backend
	}
	return name
}

// Parse reads a player spec. A reference player is one arena.ParsePlayer
// knows ("random", "alphabeta:D", "classic:D", "classic:nNODES",
// "classic:tSECONDS"). An external engine speaking the Hub protocol is
// "hub[@VISITS|@tSECONDS]:COMMAND" (the limit sent as its level, the
// Engine default's visits without one; the command split into words as a
// shell would: "hub@t0.25:'/opt/my engine/scan' hub"). A CheckerBoard
// engine library on Linux is "cb:PATH.so[@tSECONDS]" (package
// checkerboard, each game in a harness process of its own). Anything else that names a checkpoint (an existing
// path, "shipped", or a name ending in .ckpt) is a network player,
// searched by the Engine default unless its suffixes say otherwise:
//
//	PATH[@VISITS|@tSECONDS][SUFFIXES][:BACKEND]
//
// "@N" searches N visits a move (1..MaxVisits); "@tSECONDS" searches each
// move for that time (arena.ParseMoveTime: "shipped@t0.25"), its visits
// unlimited; without either, the Engine default's visits. The suffixes
// (Settings lists each with its meaning and range), each at most once,
// in any order: "+plain" starts from Plain instead of Engine, "+pass",
// "+threadsN", "+batchN", "+cpuctX", "+ptX", "+tb" (the tables of
// env.Tables, the command's --tb), and the hybrids "+mm[D]", "+cmb[D]" and
// "+ip[D]", which replace the default list. ":BACKEND" runs the network
// on that backend instead of env.Backend. The Label writes the spec back
// with its suffixes in that order ("shipped@t0.25+pass+cmb3:fp32"); a
// removed suffix (+ab and the other root verifiers) is an error that says
// so. More threads than cores are allowed, with a warning on env.Log.
func Parse(spec string, env Env) (Spec, error) {
	if isHubSpec(spec) {
		return parseHub(spec, true)
	}
	if strings.HasPrefix(spec, checkerboard.PlayerPrefix) {
		p, err := checkerboard.ParsePlayer(spec)
		if err != nil {
			return Spec{}, err
		}
		return Spec{Ref: spec, Label: p.Name()}, nil
	}
	if p, err := arena.ParsePlayer(spec); err == nil {
		return Spec{Ref: spec, Label: p.Name()}, nil
	} else if !looksLikeCheckpoint(spec) {
		return Spec{}, fmt.Errorf("%w (or a checkpoint file, %s; or an external engine, %s)", err, Syntax(), hubSyntax)
	}
	s := Spec{Model: spec, Search: Engine()}
	limit := strconv.Itoa(s.Search.Visits)
	var sfx suffixes
	if i := strings.LastIndexByte(spec, '@'); i >= 0 {
		v := spec[i+1:]
		if j := strings.IndexByte(v, ':'); j >= 0 {
			v, s.Backend = v[:j], v[j+1:]
			if s.Backend == "" {
				return Spec{}, fmt.Errorf("player %q: empty backend after ':' (valid: %s)", spec, strings.Join(infer.BackendNames(), ", "))
			}
		}
		var err error
		if v, sfx, err = cutSuffixes(spec, v, env); err != nil {
			return Spec{}, err
		}
		s.Model, limit = spec[:i], v
		if t, ok := strings.CutPrefix(v, "t"); ok {
			d, err := arena.ParseMoveTime(t)
			if err != nil {
				return Spec{}, fmt.Errorf("player %q: %w", spec, err)
			}
			s.Search.Visits, s.Search.Time = 0, d
		} else {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > MaxVisits {
				return Spec{}, fmt.Errorf("player %q: visits after @ must be an integer in 1..%d or t and a time (%s), optionally followed by suffixes (%s)", spec, MaxVisits, arena.MoveTimeSyntax, Syntax())
			}
			s.Search.Visits = n
		}
	}
	sfx.apply(&s.Search)
	s.Label = filepath.Base(s.Model) + "@" + limit + sfx.label
	if s.Backend != "" {
		s.Label += ":" + s.Backend
	}
	return s, nil
}

// IsNetwork reports whether s is a network player.
func (s Spec) IsNetwork() bool { return s.Ref == "" && !s.IsHub() }

// looksLikeCheckpoint reports whether spec names a checkpoint: an
// existing path before its last '@', "shipped", or a name ending .ckpt.
func looksLikeCheckpoint(spec string) bool {
	path := spec
	if i := strings.LastIndexByte(spec, '@'); i >= 0 {
		path = spec[:i]
	}
	_, err := os.Stat(path)
	return err == nil || path == Shipped || strings.HasSuffix(path, ".ckpt")
}

// suffixes are the settings a spec's suffixes give, and their label.
type suffixes struct {
	plain, pass, tables bool
	threads, batch      int     // 0: not given
	cpuct, ptemp        float64 // 0: not given
	hybrids             *tactics.Hybrids
	tablesDir           string
	label               string // the suffixes in the order Parse writes them
}

// apply sets the suffixes' settings in s: first the plain base, then the
// others.
func (x suffixes) apply(s *Search) {
	if x.plain {
		*s = Plain(s.Visits).withTime(s.Time)
	}
	if x.pass {
		s.Pass = true
	}
	if x.threads > 0 {
		s.Threads = x.threads
	}
	if x.batch > 0 {
		s.Batch = x.batch
	}
	if x.cpuct > 0 {
		s.CPuct = x.cpuct
	}
	if x.ptemp > 0 {
		s.PolicyTemp = x.ptemp
	}
	if x.tables {
		s.Tables = x.tablesDir
	}
	if x.hybrids != nil {
		s.Hybrids = *x.hybrids
	}
}

// withTime returns s with the time limit t.
func (s Search) withTime(t time.Duration) Search {
	s.Time = t
	return s
}

// cutSuffixes splits the limit text v of spec from its '+' suffixes and
// reads them.
func cutSuffixes(spec, v string, env Env) (string, suffixes, error) {
	var x suffixes
	parts := strings.Split(v, "+")
	fail := func(err error) (string, suffixes, error) {
		return "", suffixes{}, fmt.Errorf("player %q: %w (%s)", spec, err, Syntax())
	}
	seen := map[string]bool{}
	var hybrids []string
	texts := map[string]string{} // each suffix as given, by name
	for _, s := range parts[1:] {
		name := strings.TrimRight(s, "0123456789.")
		if seen[name] {
			return fail(fmt.Errorf("search switch +%s given twice", name))
		}
		seen[name] = true
		texts[name] = "+" + s
		arg := s[len(name):]
		var err error
		switch {
		case s == "plain":
			x.plain = true
		case s == "pass":
			x.pass = true
		case s == "tb":
			if env.Tables == "" {
				return "", suffixes{}, fmt.Errorf("player %q: +tb needs the tables' folder (--tb DIR)", spec)
			}
			x.tables, x.tablesDir = true, env.Tables
		case name == "threads":
			x.threads, err = parseThreads(arg, env)
		case name == "batch":
			x.batch, err = parseCount("batch", arg, MaxBatch, "a leaf count")
		case name == "cpuct":
			x.cpuct, err = parseNumber(name, arg, MinCPuct, MaxCPuct, "the exploration constant of PUCT")
		case name == "pt":
			x.ptemp, err = parseNumber(name, arg, configs.MinPolicyTemp, configs.MaxPolicyTemp, "the temperature of the network's priors")
		case tactics.RemovedHybrid(name) != nil:
			return "", suffixes{}, fmt.Errorf("player %q: +%w", spec, tactics.RemovedHybrid(name))
		case tactics.IsHybrid(name):
			hybrids = append(hybrids, s) // read together below
		default:
			err = fmt.Errorf("unknown suffix %q", "+"+s)
		}
		if err != nil {
			return fail(err)
		}
	}
	if len(hybrids) > 0 {
		h, err := tactics.ParseHybrids(strings.Join(hybrids, ","))
		if err != nil {
			return fail(err)
		}
		x.hybrids = &h
	}
	// The label: the suffixes in one order, +threads1 left out (one
	// thread is every search's), the hybrids with their depths.
	for _, name := range []string{"plain", "pass", "threads", "batch", "cpuct", "pt", "tb"} {
		if t, ok := texts[name]; ok && t != "+threads1" {
			x.label += t
		}
	}
	if x.hybrids != nil {
		x.label += "+" + strings.ReplaceAll(x.hybrids.String(), ",", "+")
	}
	return parts[0], x, nil
}

// parseThreads reads the N of "+threadsN"; more threads than cores is
// allowed, with a warning on env.Log.
func parseThreads(s string, env Env) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("+threads%s: %q is not an integer", s, s)
	}
	warning, err := engine.CheckThreads(n)
	if err != nil {
		return 0, fmt.Errorf("+threads%s: %w", s, err)
	}
	env.warn(warning)
	return n, nil
}

// parseCount reads the N of "+NAMEN", an integer in 1..hi.
func parseCount(name, s string, hi int, what string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > hi {
		return 0, fmt.Errorf("+%s%s: want %s in 1..%d", name, s, what, hi)
	}
	return n, nil
}

// parseNumber reads the X of "+NAMEX", a number in [lo, hi].
func parseNumber(name, x string, lo, hi float64, what string) (float64, error) {
	v, err := strconv.ParseFloat(x, 64)
	if err != nil || !(v >= lo && v <= hi) {
		return 0, fmt.Errorf("+%s%s: want %s, a number in %g..%g", name, x, what, lo, hi)
	}
	return v, nil
}

// errNoLimit is the error of a search without a visit or time limit.
var errNoLimit = errors.New("--visits 0 needs a --time limit")
