package player

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"dama/arena"
)

// HubPrefix starts the spec of an external engine speaking the Hub
// protocol: "hub:COMMAND", or with its limit "hub@VISITS:COMMAND" and
// "hub@tSECONDS:COMMAND".
const HubPrefix = "hub"

// hubSyntax is the syntax of a hub spec, for errors and help texts (the
// Settings row of the engine).
const hubSyntax = "hub[@VISITS|@tSECONDS]:COMMAND"

// isHubSpec reports whether spec names an external Hub engine.
func isHubSpec(spec string) bool {
	return strings.HasPrefix(spec, HubPrefix+":") || strings.HasPrefix(spec, HubPrefix+"@")
}

// parseHub reads a hub spec, hub[@LIMIT]:COMMAND: the limit as a network
// spec's (visits, or t and a time; without one, the Engine default's
// visits), the command split into words as a shell would (quotes and
// backslashes). withLimit false refuses a limit in the spec (a command
// whose --visits and --time give it).
func parseHub(spec string, withLimit bool) (Spec, error) {
	head, command, ok := strings.Cut(spec, ":")
	if !ok {
		return Spec{}, fmt.Errorf("player %q: want %s", spec, hubSyntax)
	}
	args, err := SplitCommand(command)
	if err != nil {
		return Spec{}, fmt.Errorf("player %q: the command: %w", spec, err)
	}
	if len(args) == 0 {
		return Spec{}, fmt.Errorf("player %q: no command after %q (%s)", spec, head+":", hubSyntax)
	}
	s := Spec{Hub: args, Search: Search{Visits: Engine().Visits}}
	if limit, given := strings.CutPrefix(head, HubPrefix+"@"); given {
		if !withLimit {
			return Spec{}, fmt.Errorf("player %q: give the limit with --visits or --time, not in the spec", spec)
		}
		if t, ok := strings.CutPrefix(limit, "t"); ok {
			d, err := arena.ParseMoveTime(t)
			if err != nil {
				return Spec{}, fmt.Errorf("player %q: %w", spec, err)
			}
			s.Search = Search{Time: d}
		} else {
			n, err := strconv.Atoi(limit)
			if err != nil || n < 1 || n > MaxVisits {
				return Spec{}, fmt.Errorf("player %q: the limit after hub@ must be visits in 1..%d or t and a time (%s): %s", spec, MaxVisits, arena.MoveTimeSyntax, hubSyntax)
			}
			s.Search = Search{Visits: n}
		}
	} else if head != HubPrefix {
		return Spec{}, fmt.Errorf("player %q: want %s", spec, hubSyntax)
	}
	return s, nil
}

// IsHub reports whether s is an external engine speaking the Hub
// protocol.
func (s Spec) IsHub() bool { return len(s.Hub) > 0 }

// hubName is the name of a hub player: its spec with its limit,
// "hub@t0.25:./scan hub".
func (s Spec) hubName() string {
	name := HubPrefix
	if lt := s.Search.limitText(); lt != "" {
		name += "@" + lt
	}
	return name + ":" + JoinCommand(s.Hub)
}

// hubPlayer is an external engine as a player of matches: its log file
// is closed with it.
type hubPlayer struct {
	*arena.HubPlayer
	log *os.File
}

// Close ends the engines and closes the log.
func (p *hubPlayer) Close() error {
	err := p.HubPlayer.Close()
	return errors.Join(err, p.log.Close())
}

// openHub returns the external engine of s as a player: its level s's
// visits and time, its stderr and the protocol's lines in a log file in
// the temporary folder, whose name goes to env.Log.
func (s Spec) openHub(env Env) (arena.Player, error) {
	if env.CPUClock {
		env.warn(fmt.Sprintf("%s: --clock cpu does not apply to an external engine: its level is wall-clock time", s))
	}
	log, err := os.CreateTemp("", "dama-hub-*.log")
	if err != nil {
		return nil, fmt.Errorf("player %s: the engine's log: %w", s, err)
	}
	p, err := arena.NewHubPlayer(arena.HubConfig{Label: s.String(), Command: s.Hub, Visits: s.Search.Visits, Time: s.Search.Time, Log: log})
	if err != nil {
		log.Close()
		os.Remove(log.Name())
		return nil, fmt.Errorf("player %s: %w", s, err)
	}
	if env.Log != nil {
		fmt.Fprintf(env.Log, "%s: the engine's stderr and the protocol in %s\n", s, log.Name())
	}
	return &hubPlayer{HubPlayer: p, log: log}, nil
}

// SplitCommand splits a command line into words as a POSIX shell does,
// without expansions: blanks separate words; single quotes keep what
// they hold; double quotes too, but for a backslash before " or \; a
// backslash elsewhere keeps the next character. An unterminated quote
// is an error.
func SplitCommand(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unterminated ' at offset %d of %q", i, s)
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
					i++
				}
				w.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, fmt.Errorf("unterminated \" in %q", s)
			}
			inWord = true
		case c == '\\' && i+1 < len(s):
			i++
			w.WriteByte(s[i])
			inWord = true
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}

// JoinCommand writes words back as SplitCommand reads them: a word with
// a blank, a quote, a backslash or a comma (or an empty one) in single
// quotes.
func JoinCommand(words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		if w != "" && !strings.ContainsAny(w, " \t\n'\"\\,") {
			out[i] = w
			continue
		}
		out[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}

// SplitSpecs splits a comma-separated list of player specs (dama tactics
// --players): a comma inside quotes (a hub spec's command) does not
// split.
func SplitSpecs(list string) []string {
	var out []string
	var quote byte
	start := 0
	for i := 0; i < len(list); i++ {
		switch c := list[i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			} else if c == '\\' && quote == '"' {
				i++
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '\\':
			i++
		case c == ',':
			out = append(out, strings.TrimSpace(list[start:i]))
			start = i + 1
		}
	}
	return append(out, strings.TrimSpace(list[start:]))
}

// LadderNote says how the rated player searched: an external engine by
// its own search at the level sent, a network as Search.LadderNote says.
func (s Spec) LadderNote() string {
	if s.IsHub() {
		return "search: the engine's own, at " + arena.HubLevel(s.Search.Visits, s.Search.Time)
	}
	return s.Search.LadderNote()
}
