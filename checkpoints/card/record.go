package card

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"dama/arena"
	"dama/checkpoints"
	"dama/model"
)

// Version is the format version of the record (model.json) written now.
const Version = 1

// Record is model.json: the machine-readable card of the shipped model.
// Training may go on in pieces (dama train --init the shipped model); the
// totals add up every piece since the first.
type Record struct {
	Version    int       `json:"version"`
	Created    time.Time `json:"created"`
	Revision   string    `json:"revision"`
	ModelSHA   string    `json:"model_sha256"`
	Network    string    `json:"network"`
	Parameters int       `json:"parameters"`
	Step       int64     `json:"step"`
	Pieces     []Piece   `json:"pieces"`
	Games      int       `json:"games"`
	Positions  int64     `json:"positions"`
	CPUHours   float64   `json:"cpu_hours"`
	WallHours  float64   `json:"wall_hours"`
	Ladder     *Ladder   `json:"ladder,omitempty"`
	Match      string    `json:"match,omitempty"` // the direct match against dama ship --match, one line
	// Ratings are the ladder ratings of the lineage, one per ship with a
	// rating, oldest first: the curve of strength against training.
	Ratings []Rating `json:"ratings,omitempty"`
}

// Piece is one training run of the lineage.
type Piece struct {
	Run         string `json:"run"`
	Config      string `json:"config"`      // run.name of its configuration
	Generations int    `json:"generations"` // those that trained the shipped network, the totals' span
	// RunGenerations is how many the run had when the model was shipped,
	// where more than Generations: the later ones trained on from the
	// shipped network but are not in it, so the totals leave them out.
	RunGenerations int     `json:"run_generations,omitempty"`
	Games          int     `json:"games"`
	Positions      int64   `json:"positions"`
	CPUHours       float64 `json:"cpu_hours"`
	WallHours      float64 `json:"wall_hours"` // time in its stages (self-play, training, arena)
	InitSHA        string  `json:"init_sha256,omitempty"`
	// Recipe lists how its settings changed over the generations it
	// counts, oldest first: each phase of its configuration's schedule
	// begun ("generation 20, schedule phase 1: selfplay.hybrids=mm4,cmb3,ip3
	// (the note)") and each change a resume made with --allow-change, as
	// its config-changes.jsonl recorded them.
	Recipe []string `json:"recipe,omitempty"`
}

// Ladder is the ladder rating of the shipped model.
type Ladder struct {
	Checksum   string             `json:"ladder"` // the ladder's checksum, 12 digits
	Visits     int                `json:"visits"`
	PassForced bool               `json:"pass_forced,omitempty"` // the search passed forced moves (dama ship --pass-forced)
	Result     arena.LadderResult `json:"result"`
}

// Rating is the ladder rating of the model shipped at one point of the
// lineage's training.
type Rating struct {
	Run        string  `json:"run"` // the piece being trained
	ModelSHA   string  `json:"model_sha256"`
	CPUHours   float64 `json:"cpu_hours"` // trainer CPU-hours of the lineage up to this model
	WallHours  float64 `json:"wall_hours"`
	Games      int     `json:"games"` // self-play games up to this model
	Ladder     string  `json:"ladder"`
	Visits     int     `json:"visits"`
	PassForced bool    `json:"pass_forced,omitempty"`
	Elo        float64 `json:"elo"`
	Low        float64 `json:"low"`
	High       float64 `json:"high"`
	RatedGames int     `json:"rated_games"`
	// Source says where a rating recorded after the fact comes from (an
	// earlier card in the repository's history); empty when dama ship
	// measured it.
	Source string `json:"source,omitempty"`
}

// ReadRecord reads the record at path. An error reading the file is
// returned as it is (fs.ErrNotExist where there is none); a record that
// does not parse, or of another version than Version, is an error
// naming path.
func ReadRecord(path string) (Record, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Record{}, err
	}
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return Record{}, fmt.Errorf("%s: %w", path, err)
	}
	if r.Version != Version {
		return Record{}, fmt.Errorf("%s: version %d, want %d", path, r.Version, Version)
	}
	return r, nil
}

// NewRecord starts the record of a model trained last by piece and
// shipped into dir. Where dir's record is of the model piece started from
// (Piece.InitSHA), the lineage goes on: its pieces and ratings are kept
// and piece added. Where its last piece is piece's own run shipped before
// (the same run, from the same model) after more training, piece replaces
// it, and the earlier rating stays a point of the curve. Otherwise (no
// record in dir, or one of another lineage) the lineage starts with
// piece. The totals add up the pieces. A record in dir that cannot be
// read is an error (ReadRecord).
func NewRecord(dir string, piece Piece) (Record, error) {
	rec := Record{Version: Version}
	prev, err := ReadRecord(filepath.Join(dir, checkpoints.RecordFile))
	switch {
	case err == nil:
		n := len(prev.Pieces)
		switch {
		case piece.InitSHA != "" && piece.InitSHA == prev.ModelSHA:
			rec.Pieces, rec.Ratings = prev.Pieces, prev.Ratings
		case n > 0 && piece.InitSHA != "" && prev.Pieces[n-1].Run == piece.Run && prev.Pieces[n-1].InitSHA == piece.InitSHA:
			// The last piece's run shipped again after more training: its
			// record replaces the piece's earlier one; the earlier
			// rating stays a point of the curve.
			rec.Pieces, rec.Ratings = prev.Pieces[:n-1], prev.Ratings
		}
	case !errors.Is(err, fs.ErrNotExist):
		return Record{}, err
	}
	rec.Pieces = append(rec.Pieces, piece)
	for _, p := range rec.Pieces {
		rec.Games += p.Games
		rec.Positions += p.Positions
		rec.CPUHours += p.CPUHours
		rec.WallHours += p.WallHours
	}
	return rec, nil
}

// SetModel fills in the shipped model: the SHA-256 of data (the bytes of
// the shipped dama.ckpt), the network and step of ck (the checkpoint as
// trained, which the shipped file slims), the project revision that ships
// it, and the time now.
func (r *Record) SetModel(ck *model.Checkpoint, data []byte, revision string) {
	sum := sha256.Sum256(data)
	r.ModelSHA = hex.EncodeToString(sum[:])
	r.Created = time.Now().UTC()
	r.Revision = revision
	r.Network = ck.Net.Config.String()
	r.Parameters = ck.Net.NumParams()
	r.Step = ck.Step
}

// AddRating appends the rating of r.Ladder (which must be set), made at
// the end of piece run, to r.Ratings.
func (r *Record) AddRating(run string) {
	l := r.Ladder
	r.Ratings = append(r.Ratings, Rating{
		Run: run, ModelSHA: r.ModelSHA, CPUHours: r.CPUHours, WallHours: r.WallHours, Games: r.Games,
		Ladder: l.Checksum, Visits: l.Visits, PassForced: l.PassForced,
		Elo: l.Result.Elo, Low: l.Result.Low, High: l.Result.High, RatedGames: l.Result.Games,
	})
}
