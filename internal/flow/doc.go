// Package flow names the eight stages of a pod's creation and carries the
// evidence the running components capture about them (and about every API
// request) to whoever watches: the terminal UI, the plain-text runner,
// tests.
//
// Components report Events to a Recorder; the Recorder fans them out to
// subscribers through bounded buffers and never blocks a reporter: a
// subscriber that falls behind loses the events that do not fit in its
// buffer and can see how many it lost. This package imports none of the
// components.
package flow
