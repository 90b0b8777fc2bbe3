package runfolder

import "time"

// MetricRecord is one line of metrics.jsonl: the losses of one training step.
type MetricRecord struct {
	Gen           int       `json:"gen"`           // generation whose candidate was being trained
	Step          int64     `json:"step"`          // global training step (over the whole run)
	Samples       int64     `json:"samples"`       // positions trained on so far in the run
	LR            float64   `json:"lr"`            // learning rate used
	PolicyLoss    float64   `json:"policy_loss"`   // cross-entropy against the visit distribution
	ValueLoss     float64   `json:"value_loss"`    // cross-entropy of W/D/L against the result
	Entropy       float64   `json:"entropy"`       // mean entropy of the predicted policy
	L2            float64   `json:"l2"`            // weight-decay term
	Total         float64   `json:"total"`         // the loss minimised
	Time          time.Time `json:"time"`          // wall clock at the end of the step
	SamplesPerSec float64   `json:"samples_per_s"` // training speed over the last steps
	// The lines of runs with the removed opponent-reply head also have
	// aux_loss, its loss; reading leaves it out.
}

// ArenaRecord is one line of arena.jsonl: one gating match.
type ArenaRecord struct {
	Gen       int       `json:"gen"`       // generation of the candidate
	Candidate string    `json:"candidate"` // candidate checkpoint, relative to the run
	Best      string    `json:"best"`      // the best model it played, relative to the run
	Games     int       `json:"games"`
	Wins      int       `json:"wins"` // from the candidate's side
	Draws     int       `json:"draws"`
	Losses    int       `json:"losses"`
	Score     float64   `json:"score"`  // candidate's score share, 0..1
	Elo       float64   `json:"elo"`    // candidate minus best
	EloLow    float64   `json:"elo_lo"` // 95% interval
	EloHigh   float64   `json:"elo_hi"`
	LLR       float64   `json:"llr,omitempty"`
	Verdict   string    `json:"verdict"` // "accept" or "reject"
	Promoted  bool      `json:"promoted"`
	Time      time.Time `json:"time"`
}

// GenerationRecord is generations/NNNN.json: what one generation consumed
// and produced. Its presence marks the generation as complete.
type GenerationRecord struct {
	Gen           int      `json:"gen"`
	Chunks        []string `json:"chunks"`    // game files consumed as new data, relative to games/
	Games         int      `json:"games"`     // new games
	Positions     int      `json:"positions"` // new training positions
	TotalGames    int      `json:"total_games"`
	Window        int      `json:"window"` // replay window in positions
	Steps         int      `json:"steps"`  // training steps of this generation
	PolicyLoss    float64  `json:"policy_loss"`
	ValueLoss     float64  `json:"value_loss"`
	Candidate     string   `json:"candidate"` // where the candidate ended, relative to the run
	Score         float64  `json:"score"`
	Elo           float64  `json:"elo"`      // candidate minus best in the gating match
	Promoted      bool     `json:"promoted"` // candidate became the best
	Best          string   `json:"best"`     // best model after this generation
	BestElo       float64  `json:"best_elo"` // cumulative Elo of the best over generation 0
	SelfPlaySec   float64  `json:"selfplay_s"`
	TrainSec      float64  `json:"train_s"`
	ArenaSec      float64  `json:"arena_s"`
	SamplesPerSec float64  `json:"samples_per_s"`
	// CPUSec is the CPU time (all threads) the trainer process spent on
	// this generation, ladder excluded; after a restart only the time since
	// the restart counts. Workers in other processes are not included.
	CPUSec   float64   `json:"cpu_s"`
	Finished time.Time `json:"finished"`
}

// LadderRecord is one line of ladder.jsonl: the best model's rating on the
// ladder of reference players after a generation.
type LadderRecord struct {
	Gen    int     `json:"gen"`    // generation after which it was rated
	Model  string  `json:"model"`  // the best model, relative to the run
	Ladder string  `json:"ladder"` // checksum prefix of the ladder file: ratings on different ladders do not compare
	Visits int     `json:"visits"` // the model's visits per move
	Games  int     `json:"games"`
	Elo    float64 `json:"elo"` // anchored rating
	Low    float64 `json:"low"` // 95% interval
	High   float64 `json:"high"`
	// Bound is "above" or "below" when the model is out of the ladder's
	// range and Elo is only a bound.
	Bound string `json:"bound,omitempty"`
	// Totals of the run up to and including Gen: trainer CPU time,
	// self-play games and training positions.
	CPUHours       float64   `json:"cpu_hours"`
	TotalGames     int       `json:"total_games"`
	TotalPositions int64     `json:"total_positions"`
	LadderSec      float64   `json:"ladder_s"` // wall time of the rating itself
	Time           time.Time `json:"time"`
}
