// Package h2wire describes HTTP/2 frames in one line each, as the watch
// article draws them (length, type, flags, stream id, then a summary of
// the payload), and taps a connection's writes so that the frames a
// client sends are described by the same code as those it reads. A
// Recorder keeps the bytes a Framer reads, so that a received frame's
// 9 header bytes can be shown as they came (RawHeader, HexLines).
//
// It is a ground package: it imports golang.org/x/net/http2 and the
// standard library only.
package h2wire
