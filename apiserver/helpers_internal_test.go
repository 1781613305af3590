package apiserver

import "github.com/kubesim/kubesim/internal/waitfor"

// waitTimeout is the deadline of the package's internal tests' waits for
// a state (the external tests' is in helpers_test.go): generous, so that
// only a hang reaches it, never a slow machine.
const waitTimeout = waitfor.Bound
