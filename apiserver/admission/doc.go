// Package admission holds kubesim's admission plugins and the Chain that
// runs them, as kube-apiserver's admission does.
//
// The API server's write handlers call a Chain in two steps, as
// kube-apiserver's do. Admit runs every mutating plugin, in order, on the
// decoded and defaulted object, before the registry's strategy and
// validation (on a delete: from inside the registry, on the stored
// object, just before Validate); Validate runs every validating plugin,
// in order, from inside the registry on the object about to be written.
// An update runs both again on each try of the registry's update loop. A
// plugin runs only on the operations it handles (its Handles, the same
// as upstream's), and in a phase only if upstream's plugin of that name
// implements that phase. Each stops at the first plugin that rejects the
// request and returns its error as an API status error with
// kube-apiserver's code and message (mostly 403 Forbidden).
//
// The plugins are nine of kube-apiserver's, in its order:
// NamespaceLifecycle (mutating, though it changes nothing: a missing or
// terminating namespace), LimitRanger (mutating and validating, running
// upstream's own code through an adapter, upstream.go: a LimitRange's
// defaults, min, max and ratio), ServiceAccount (mutating and
// validating: the pod's account, its projected token volume),
// NodeRestriction (mutating, though it changes nothing: a kubelet's
// writes), Priority (mutating: a pod's priority; validating: priority
// classes), DefaultTolerationSeconds, DefaultStorageClass and
// StorageObjectInUseProtection (mutating), and ResourceQuota (validating,
// last, upstream's code: the namespace's quotas, charged as it admits).
// Every plugin run reports an Outcome (the fields it set; whether it
// passed, skipped or rejected the request) so that a learner sees it in
// the request's trace.
//
// The plugins here are safe for concurrent use, and so is a Chain of such
// plugins that is not changed while in use; the zero Chain and a nil
// *Chain admit everything.
package admission
