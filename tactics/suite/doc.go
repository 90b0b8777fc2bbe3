// Package suite is the tactics suite: tactical positions from the
// project's own games, each with the best move that the reference
// engine's deep full-width search (package arena/classic) proves and a
// shallow search misses, and the measure of a player on them.
//
// A Suite is stored as versioned, indented JSON (Read, Decode, Suite.Write;
// arena/tactics/suite.json is the project's). A Builder finds the
// suite's positions in recorded games (Builder.Games, Builder.Game,
// Builder.Examine), and
// Audit proves the other moves of its forced wins that win too, with
// deeper searches and, given them, the endgame tables. Solve asks any
// arena.Player for its move in every position and counts the solved ones
// and the slower proven wins.
//
// The package is apart from package tactics, the MCTS-minimax hybrids
// the search runs, because scoring an arena.Player links the arena and
// the engine: self-play, which runs the hybrids, links neither.
//
// The files: suite.go (the suite file), build.go (finding the suite's
// positions in games, and their audit), tableproof.go (the audit's proofs
// that end in the endgame tables) and solve.go (scoring a player).
package suite
