// Package flow names the eight stages of a pod's creation and carries the
// evidence the running components capture about them (and about every API
// request) to whoever watches: the terminal UI, the plain-text runner,
// tests.
//
// Components report Events to a Recorder; the Recorder numbers them and
// fans them out to subscribers through bounded buffers and never blocks a
// reporter: a subscriber that falls behind loses the events that do not
// fit in its buffer and can see how many it lost.
//
// A Gate holds the real system at the boundaries between stages (Point):
// in step mode until Advance, in auto mode for a delay. Components call
// Gate.Wait at their points; a nil Gate lets everything pass.
//
// This package imports none of the components.
package flow
