// Package recording writes and reads session recordings: what a played
// scenario showed (each step with its narration in both languages, every
// flow event with its evidence, each step's result and its question's
// answer), as the runner handed it to its outputs, in the order they got
// it and when. `kubesim play --record-session FILE` writes one (Writer);
// `kubesim replay FILE` reads it (Read) and hands the same calls to the
// same printers, or to the terminal UI (Recording.Feed), with no cluster.
//
// The file is JSON Lines: a header, then one entry per call, then an end
// entry. docs/replay.md is the reference of the format.
package recording
