package rules

// HasCapture reports whether c, were it c's turn, would have a capture in p
// (whoever is actually to move). Searchers use it to see a threat of the
// side not to move without generating its moves. It does not allocate.
func (p Position) HasCapture(c Color) bool {
	empty := boardMask &^ (p.white | p.black)
	var mine, opp uint64
	if c == White {
		mine, opp = p.white, p.black
	} else {
		mine, opp = p.black, p.white
	}
	men := mine &^ p.kings
	kings := mine & p.kings
	oppMen := opp &^ p.kings
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
