// Package engine plays and analyses Italian draughts with MCTS and a
// network: the Hub protocol engine (the text protocol of the draughts
// engine Scan, spoken by draughts GUIs and libraries), a terminal game
// against the engine, and position analysis. It is given an
// mcts.Evaluator; loading networks is the caller's business.
//
// Searcher runs one search at a time under Limits (visits, time, PV depth,
// or until stopped) and reports progress as Info. Hub, Play and Analyze
// build on it.
package engine
