// Package waitfor lets tests wait for a running system (a cluster, a
// component, a process) to reach a state without failing because the
// machine is slow. A correctness test fails only when nothing moves for a
// long time, never because a busy machine took longer than a guess.
//
// Progress polls a condition and fails only when the progress it reports
// has not changed for Stall, or, if it keeps changing, after Cap (or
// shortly before the test binary's -timeout, whichever comes first). A
// wait with nothing to observe but its end (a process exit, a line, one
// event) uses Bound, one generous deadline.
//
// These bounds only move where a failing test gives up: a passing test
// returns as soon as its condition holds. Only tests import this package.
package waitfor
