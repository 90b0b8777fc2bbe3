package model

// DecodePayload gives the external tests the payload parser, which the
// checksum would otherwise shield from almost every input.
var DecodePayload = decodePayload

// IndexSquares and MeasureSharing give the external tests the policy
// index's inverse and its sharing measure.
var (
	IndexSquares   = indexSquares
	MeasureSharing = measureSharing
)
