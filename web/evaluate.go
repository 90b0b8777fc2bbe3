package web

import (
	"context"
	"errors"
	"net/http"

	"dama/engine"
	"dama/rules"
)

// The eval graph of a game without stored search values (one played on
// the board, imported, or a gating or ladder game): GET /api/evaluate
// searches each of its positions with a few visits, from the first on,
// and streams one point per position as it goes (the page draws the
// graph as they come: its progress), then a last event with the id
// "done". It holds one of the analysis slots (Options.Analyses), apart
// from the client's continuous analysis, and ends when the client goes
// away, starts another evaluation, or at twice Options.AnalysisTime.

// evalVisits is the default search of one position of an evaluation.
const evalVisits = 100

// evalPoint is one position of a game's evaluation: WDL for the side to
// move, White its expected score for White (win + draw/2).
type evalPoint struct {
	Ply    int        `json:"ply"`
	Of     int        `json:"of"` // the positions to evaluate
	Side   string     `json:"side"`
	WDL    [3]float32 `json:"wdl"`
	White  float64    `json:"white"`
	Visits int        `json:"visits"`
}

// whiteScore is the expected score for White of wdl, which is for side.
func whiteScore(side rules.Color, wdl [3]float32) float64 {
	s := float64(wdl[0]) + float64(wdl[1])/2
	if side == rules.Black {
		return 1 - s
	}
	return s
}

// handleEvaluate streams the evaluation of a game: ?start=FEN&moves=...
// &model=ID&visits=N (1..Options.MaxVisits, default evalVisits)&client=ID.
func (s *Server) handleEvaluate(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Last-Event-ID") == doneID {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	req, g, err := queryGame(r)
	if err != nil {
		httpError(w, http.StatusBadRequest, oneLine(err))
		return
	}
	visits, err := intQuery(r, "visits", evalVisits, 1, s.opt.MaxVisits)
	if err != nil {
		httpError(w, http.StatusBadRequest, err.Error())
		return
	}
	ctx, n, ev, opt, done, ok := s.slotSearch(w, clientID(r)+"/evaluate", req.Model)
	if !ok {
		return
	}
	defer done()
	ctx, cancel := context.WithTimeout(ctx, 2*s.opt.AnalysisTime)
	defer cancel()
	stop := context.AfterFunc(r.Context(), cancel)
	defer stop()
	st, ok := startStream(w, cancel)
	if !ok {
		return
	}
	moves := g.Moves()
	sr := engine.NewSearcher(ev, opt)
	line := rules.NewGame(g.Start())
	why := "done"
	for ply := 0; ply <= len(moves); ply++ {
		if ply > 0 {
			line.PlayUnchecked(moves[ply-1])
		}
		p := line.Position()
		pt := evalPoint{Ply: ply, Of: len(moves) + 1, Side: p.Side().String()}
		if o := line.Outcome(); o.Over() {
			if c, won := o.Result.Winner(); won && c == p.Side() {
				pt.WDL = [3]float32{1, 0, 0}
			} else if won {
				pt.WDL = [3]float32{0, 0, 1}
			} else {
				pt.WDL = [3]float32{0, 1, 0}
			}
		} else {
			res, err := sr.Think(ctx, line, engine.Limits{Visits: visits, Time: s.opt.MaxSearch}, nil)
			if err != nil {
				why = "error: " + oneLine(err)
				break
			}
			pt.WDL, pt.Visits = res.WDL, res.RootVisits
		}
		if err := ctx.Err(); err != nil {
			why = endStopped
			if errors.Is(err, context.DeadlineExceeded) {
				why = endTime
			}
			break
		}
		pt.White = whiteScore(p.Side(), pt.WDL)
		st.send("point", "", pt)
	}
	st.send("done", doneID, map[string]any{"why": why, "model": n.name, "visits": visits})
}
