// Package tb builds and probes endgame tables for Italian draughts: the
// exact result of every position with at most N pieces (any mix of men and
// kings, either side to move) under the rules of package rules, which is
// the only rules authority used to generate and verify them.
//
// # What a table stores
//
// The 40-move rule makes the value of a position depend on its quiet
// counter q (rules.Game.QuietPlies: plies of king moves without a capture
// since the last man move or capture). The tables store, for every
// position P, its value under the rules as a function of q, which always
// has the form
//
//	V(P, q) = T(P) when q + D(P) <= rules.QuietLimit, else a draw
//
// with a type T (win, draw or loss for the side to move) and a distance D
// in 0..80 plies: the number of plies within which the winner forces a
// man move or a capture (by either side) that keeps the win, or the end
// of the game; for a loss, how long the loser can put that off. A win
// stored with D = 7 is a win while q <= 73 and a draw after (the 40-move
// rule comes first). So a stored win is never a position that the rule
// turns into a draw: Entry.Under(q) gives the exact value at counter q,
// and a won ending played by the distance (Tables.Best and Choose, the moves
// of least distance for a win) is won within the rule. A position whose
// win needs more than 80 quiet plies is stored as a draw, which it is.
//
// V ignores threefold repetition, and that is exact when no position of
// the current quiet phase occurred before: the winner's moves of least
// distance make D fall at every ply, so its line never repeats, and
// repetition only adds draws. A position that did occur before (the
// search's Query.Repetitions > 0) may be drawn by a repetition the table
// does not see; Oracle declines those.
//
// Generation (Generate) solves one material signature and its colour twin
// at a time, after the signatures its captures and promotions reach: the
// positions are layered by how far their men still have to go (a man move
// goes one layer down), and inside a layer the king moves are solved by up
// to 80 synchronous passes over an in-memory graph of the quiet moves,
// reversed: pass d visits the positions with a move to one resolved in
// pass d-1 and resolves those at distance d. Whatever is unresolved after
// pass 80 is a draw.
//
// # Index and files
//
// A signature (Material) is the counts of men and kings of the side to
// move and of its opponent. Only White-to-move positions are stored: a
// position with Black to move is probed as its flip (rules.Position.Flip:
// the board turned, colours swapped), which halves the tables. The index
// ranks the opponent's men among squares 1..28, the side to move's men
// among 5..32 (men never stand on their promotion row), then the kings of
// each side among the squares left, each group as a combination (colex
// order); index points where men of both sides share a square are holes,
// stored as draws and never probed.
//
// Each signature is one file, NAME.dtb (NAME is the four counts, e.g.
// 0201 for two kings against one king with the side of the kings to
// move), in the project's envelope (internal/envelope: magic, version,
// CRC-32C): the counts, the number of positions, the bits per entry, and
// the entries bit-packed (each the fewest bits that hold the table's
// largest code) and compressed with DEFLATE. Files are written under a
// temporary name and renamed into place (internal/atomicfile), so a killed
// generation never leaves a file that reads as complete, and a new run
// skips every signature whose file is already there and checks.
//
// # Verification
//
// A checksum says a file is as it was written, not that what was written
// is right: a table re-encoded with other entries and its checksum
// recomputed passes it. Verify checks every entry against one ply of the
// tables themselves (the equation Generate solves, whose solution is
// unique, so a table set that passes is exact given the rules' moves).
// Open vouches for the entries of every table it probes before anything
// plays with them: a table recorded in the folder's stamp (StampName,
// keyed by the SHA-256 of each file; VerifyDir and Open write it) gets a
// sampled check of OpenSample entries, any other one a full Verify, and
// an inconsistent table is an *InconsistentError naming its file.
package tb
