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
// Gate.Wait at their points; a nil Gate lets everything pass. A
// component keeps, per pod, its Marks: the points it held the pod at,
// each once, and the latest stage it recorded, so that its stages are
// recorded once and in order.
//
// A controller's pod is told about twice: the API server records its
// stages, and the controller, once its POST returns, who created it and
// why (CreatorOf). A reader that shows the two together asks
// CreatedByController of a pod's stage 1, and keeps a creator that came
// before the pod's own events in its Creators, the creator index.
//
// A Layout lays out the evidence of an Event once, in English or
// Chinese (Text), as Lines with a Role: Brief for a running log (the
// plain printer), Full for a pane (the TUI and its markdown export).
// Those outputs only indent, style and fit the Lines to their width;
// every Line is Printable. FormatDuration is the one way durations are
// written.
//
// This package imports none of the components.
package flow
