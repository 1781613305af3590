package admission

import "slices"

// handles reports whether op is one of ops. Each plugin's Handles lists
// the operations kube-apiserver's plugin of the same name handles (the
// admission.NewHandler it is built with); the Chain does not run a
// plugin on any other operation, in either phase.
func handles(op Operation, ops ...Operation) bool { return slices.Contains(ops, op) }
