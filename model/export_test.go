package model

// DecodePayload gives the external tests the payload parser, which the
// checksum would otherwise shield from almost every input.
var DecodePayload = decodePayload
