package cbengine

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"dama/engine"
	"dama/model/infer"
	"dama/player"
)

// ProtocolVersion and GameType are the answers to "get protocolversion"
// and "get gametype" (22: Italian draughts).
const (
	ProtocolVersion = 2
	GameType        = 22
)

// Command is enginecommand: the answer to the command line cmd and
// whether it was understood (with "?" where it was not). A set whose
// value is wrong is not understood either; its reply says what is wrong.
// The commands (words case-insensitive; Help lists them):
//
//	name, about, help
//	get protocolversion (2), get gametype (22)
//	get|set hashsize MB    the search tree's memory (engine.MinTreeMB..MaxTreeMB)
//	get|set threads N      search threads (1..engine.MaxThreads)
//	get|set visits N       visits a move beside the time (0: the time alone)
//	get|set tables DIR     endgame tables: a folder, auto:N or none
//	get|set model FILE     a checkpoint file, a run folder, shipped or random
//	get|set backend NAME   the network's forward pass: auto or one of infer.BackendNames
//
// get book and set book are not understood (dama has no opening book).
func (e *Engine) Command(cmd string) (reply string, ok bool) {
	words := strings.Fields(cmd)
	if len(words) == 0 {
		return "?", false
	}
	verb := strings.ToLower(words[0])
	switch verb {
	case "name":
		v := e.Version
		if v == "" {
			v = "dev"
		}
		return "dama " + v, true
	case "about":
		return e.about(), true
	case "help":
		return Help(), true
	case "get", "set":
	default:
		return "?", false
	}
	if len(words) < 2 {
		return "?", false
	}
	key := strings.ToLower(words[1])
	if verb == "get" {
		if len(words) != 2 {
			return "?", false
		}
		return e.get(key)
	}
	// The value is the rest of the line: a path may hold spaces.
	rest := strings.TrimSpace(cmd)
	rest = strings.TrimSpace(rest[len(words[0]):])
	value := strings.TrimSpace(rest[len(words[1]):])
	if value == "" {
		return fmt.Sprintf("set %s: no value", key), false
	}
	return e.set(key, value)
}

// get answers "get key".
func (e *Engine) get(key string) (string, bool) {
	e.smu.Lock()
	st := e.settings
	e.smu.Unlock()
	s := st.spec.Search
	switch key {
	case "protocolversion":
		return strconv.Itoa(ProtocolVersion), true
	case "gametype":
		return strconv.Itoa(GameType), true
	case "hashsize":
		return strconv.Itoa(treeMB(s)), true
	case "threads":
		return strconv.Itoa(max(s.Threads, 1)), true
	case "visits":
		return strconv.Itoa(st.visits), true
	case "tables":
		if s.Tables == "" {
			return "none", true
		}
		return s.Tables, true
	case "model":
		return st.spec.Model, true
	case "backend":
		if st.spec.Backend == "" {
			return "auto", true
		}
		return st.spec.Backend, true
	}
	return "?", false
}

// treeMB is the tree memory of s in MB.
func treeMB(s player.Search) int {
	if s.TreeMB > 0 {
		return s.TreeMB
	}
	return engine.TreeMB(0)
}

// set answers "set key value", changing the settings when the value is
// right.
func (e *Engine) set(key, value string) (string, bool) {
	integer := func(lo, hi int) (int, error) {
		n, err := strconv.Atoi(value)
		if err != nil || n < lo || n > hi {
			return 0, fmt.Errorf("set %s %s: want an integer in %d..%d", key, value, lo, hi)
		}
		return n, nil
	}
	var apply func(st *settings)
	reply := key + " " + value
	switch key {
	case "hashsize":
		n, err := integer(engine.MinTreeMB, engine.MaxTreeMB)
		if err != nil {
			return err.Error(), false
		}
		apply = func(st *settings) { st.spec.Search.TreeMB = n }
	case "threads":
		n, err := integer(1, engine.MaxThreads)
		if err != nil {
			return err.Error(), false
		}
		if w, _ := engine.CheckThreads(n); w != "" {
			reply += " (warning: " + w + ")"
		}
		apply = func(st *settings) { st.spec.Search.Threads = n }
	case "visits":
		n, err := integer(0, player.MaxFlagVisits)
		if err != nil {
			return err.Error(), false
		}
		apply = func(st *settings) { st.visits = n }
	case "tables":
		dir := value
		if strings.EqualFold(dir, "none") {
			dir = ""
		} else if _, err := player.OpenTables(dir, nil); err != nil {
			return fmt.Sprintf("set tables %s: %v", value, err), false
		}
		apply = func(st *settings) { st.spec.Search.Tables = dir }
	case "model":
		name := value
		if strings.EqualFold(name, player.Shipped) || strings.EqualFold(name, player.Random) {
			name = strings.ToLower(name)
		}
		if name != player.Random {
			c, err := player.LoadModel(name)
			if err != nil {
				return fmt.Sprintf("set model %s: %v", value, err), false
			}
			apply = func(st *settings) { st.spec.Model, st.ck = name, c }
		} else {
			apply = func(st *settings) { st.spec.Model, st.ck = name, nil }
		}
	case "backend":
		name := strings.ToLower(value)
		if name != "auto" && !slices.Contains(infer.BackendNames(), name) {
			return fmt.Sprintf("set backend %s: want auto or one of %s", value, strings.Join(infer.BackendNames(), ", ")), false
		}
		if name == "auto" {
			name = ""
		}
		apply = func(st *settings) { st.spec.Backend = name }
	default:
		return "?", false
	}
	e.smu.Lock()
	apply(&e.settings)
	e.changed = true
	e.smu.Unlock()
	if e.preload.Load() {
		e.Preload()
	}
	return reply, true
}

// about is the answer to "about": the engine, its network and search.
func (e *Engine) about() string {
	e.smu.Lock()
	st, net := e.settings, e.netName
	e.smu.Unlock()
	if net == "" {
		net = st.spec.Model + " (opened by the first move)"
	}
	return "dama: an Italian draughts engine (FID rules), a network trained by self-play searched by MCTS.\n" +
		"Network: " + net + ".\n" +
		"Search: " + st.spec.Search.Describe() + "; the time CheckerBoard gives a move (or its clock), or the visits set.\n" +
		"Options: enginecommand set hashsize|threads|visits|tables|model|backend (help lists them)."
}

// Help is the answer to "help": the commands the engine takes.
func Help() string {
	return "dama takes these engine commands (get NAME answers the current value):\n" +
		fmt.Sprintf("set hashsize MB: the search tree's memory, %d..%d MB\n", engine.MinTreeMB, engine.MaxTreeMB) +
		fmt.Sprintf("set threads N: search threads, 1..%d\n", engine.MaxThreads) +
		"set visits N: visits a move beside the time, the first limit reached ends the search (0: the time alone)\n" +
		fmt.Sprintf("set tables DIR: endgame tables, a folder made by dama tb gen, auto:N (N in 2..%d) or none\n", player.MaxAutoTables) +
		"set model FILE: a checkpoint file, a run folder, shipped (the built-in model) or random\n" +
		"set backend NAME: the network's forward pass, auto or one of " + strings.Join(infer.BackendNames(), ", ")
}
