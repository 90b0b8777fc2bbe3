package rules

// fromSide splits p from c's side: the empty squares, c's men and kings,
// and the other side's pieces and men.
func (p Position) fromSide(c Color) (empty, men, kings, opp, oppMen uint64) {
	mine, opp := p.white, p.black
	if c != White {
		mine, opp = p.black, p.white
	}
	return boardMask &^ (p.white | p.black), mine &^ p.kings, mine & p.kings, opp, opp &^ p.kings
}

// HasCapture reports whether c, were it c's turn, would have a capture in p
// (whoever is actually to move). Searchers use it to see a threat of the
// side not to move without generating its moves. It does not allocate.
func (p Position) HasCapture(c Color) bool {
	empty, men, kings, opp, oppMen := p.fromSide(c)
	if c == White {
		if men&((oppMen<<4)&(empty<<8)|(oppMen<<5)&(empty<<10)) != 0 {
			return true
		}
	} else {
		if men&((oppMen>>4)&(empty>>8)|(oppMen>>5)&(empty>>10)) != 0 {
			return true
		}
	}
	return kings&((opp<<4)&(empty<<8)|(opp<<5)&(empty<<10)|(opp>>4)&(empty>>8)|(opp>>5)&(empty>>10)) != 0
}
