// Package admission holds kubesim's admission plugins and the Chain that
// runs them, as kube-apiserver's admission does.
//
// The API server's write handlers call a Chain in two steps. Admit (on a
// create or an update) runs every mutating plugin, in order, on the
// decoded and defaulted object, before the registry's strategy and
// validation; Validate (on every write, deletes too) runs every
// validating plugin, in order, from inside the registry on the object
// about to be written. An update runs both again on each try of the
// registry's update loop. Each stops at the first plugin that rejects the
// request and returns its error as an API status error with
// kube-apiserver's code and message (mostly 403 Forbidden).
//
// The plugins are seven of kube-apiserver's: ServiceAccount (mutating and
// validating: the pod's account, its projected token volume), Priority
// and DefaultTolerationSeconds (mutating), NamespaceLifecycle and
// NodeRestriction (validating), and two that run upstream's own code
// through an adapter (upstream.go): LimitRanger (mutating and validating:
// a LimitRange's defaults, min, max and ratio) and ResourceQuota
// (validating, last: the namespace's quotas, charged as it admits). Every plugin run reports an Outcome (the
// fields it set; whether it passed, skipped or rejected the request) so
// that a learner sees it in the request's trace.
//
// The plugins here are safe for concurrent use, and so is a Chain of such
// plugins that is not changed while in use; the zero Chain and a nil
// *Chain admit everything.
package admission
