// Package player is the one description of a player of dama: a network
// searched by MCTS (the engine's, self-play's, the gate's), a reference
// player of package arena (random, alphabeta, classic), or an external
// engine speaking the Hub protocol ("hub@t0.25:./engine", an
// arena.HubPlayer, its search limit sent as its level).
//
// A player is written three ways, and each reads into the same Spec and
// its Search:
//
//   - a spec string, as arena and tactics take it (Parse):
//     "shipped@t1.0", "run/best@800+plain+pass:fp32", "classic:t0.25";
//   - command-line flags (AddFlags: --visits, --time, --batch, --threads,
//     --pass-forced, --policy-temp, --hybrids, --tb, --backend, ...), as
//     hub, play, analyze, ladder and ship take them;
//   - configuration keys (Training, Gate, Ladder: selfplay.visits,
//     selfplay.leaves_in_flight, arena.visits, ladder.visits, ...), as the
//     trainer reads them.
//
// Each starts from a named default:
//
//   - Engine: what dama hub, play and analyze and the web view's board
//     play (engine.SearchDefaults and tactics.DefaultHybrids); a network
//     spec starts here too, so that "shipped@t1.0" in dama arena plays
//     what "dama hub --time 1" plays;
//   - Plain: plain PUCT, what a spec asks for with +plain (and what a
//     bare network spec meant before the Engine default);
//   - Training: self-play's search, from the selfplay section;
//   - Gate: the gating match's search, from the selfplay and arena
//     sections;
//   - Ladder: the ladder's rating search, from the selfplay and ladder
//     sections; dama ladder rates by Ladder(configs.Default()), plain
//     PUCT at 800 visits, so that its ratings stay comparable with those
//     of the runs.
//
// Settings lists every setting once: its flag, its spec suffix, its
// configuration key, what it means and its range. The flags' help texts,
// the syntax in errors (Syntax) and docs/commands.md come from it.
//
// Open turns a network Spec into an evaluator, search options and limits
// (Network); Spec.Player any Spec into an arena.Player.
package player
