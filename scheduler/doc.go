// Package scheduler is kubesim's kube-scheduler: it places each pod that
// waits for a node (spec.nodeName empty, spec.schedulerName ours) on one,
// talking to the API server only through client-go, as the user
// system:kube-scheduler.
//
// One scheduling attempt, as in kube-scheduler:
//
//  1. The pod arrives through the one pod informer (every pod but the
//     finished ones: fieldSelector status.phase!=Succeeded,
//     status.phase!=Failed). Its handlers split what it sees: a pod
//     without a node, for this scheduler, enters the scheduling queue
//     (queue.go), ordered by priority; a pod on a node goes to the cache.
//  2. The scheduling loop pops it and refreshes its snapshot of the nodes
//     and the pods on them (cache.go: bound pods, plus pods assumed but
//     not yet bound).
//  3. Filter plugins rule nodes out, each with a reason a person can read
//     ("Insufficient cpu"); the first rejection per node counts. From 100
//     nodes on, the search stops once it has enough feasible nodes
//     (numFeasibleNodesToFind), and the next one starts where it stopped
//     (feasible.go).
//  4. Score plugins rank the nodes left, 0-100 each, times a weight; the
//     highest total wins; among equal totals kube-scheduler picks at
//     random (Config.TieBreaker), and the decision names the tied nodes.
//     Filter and Score run on several workers (Config.Parallelism, at
//     most GOMAXPROCS; parallel.go), with the same outcome as on one.
//  5. The pod is assumed on the node at once, so the next attempt sees the
//     room taken, and bound in the background: POST pods/<name>/binding,
//     then a Scheduled event.
//  6. When no node fits, the FailedScheduling event and the condition
//     PodScheduled=False carry kube-scheduler's message ("0/3 nodes are
//     available: 3 Insufficient cpu. preemption: ..."), and the pod waits
//     in the queue for a cluster change that could help it. A binding
//     that fails (the pod was deleted meanwhile: 404) is reported the
//     same way, by the binding's own goroutine.
//
// Bindings and failure reports run on at most Config.ParallelAPICalls
// goroutines, which only the scheduling loop waits for; a goroutine that
// holds one never waits for another (a failed binding makes its report
// itself, as kube-scheduler's binding goroutine calls its failure
// handler), so failures cannot use up every place and wait on each other.
// kube-scheduler has no check that its loop still makes progress: of a
// leader, its /healthz checks that its Lease is renewed (the leader
// election's watchdog), and /readyz adds that its event handlers synced
// and that it is not shutting down, so a wedged leader would keep its
// Lease and look healthy there too. It relies on its loop never waiting on its own API calls, and so
// does this one; a leader that loses its Lease stops (Config.Lead).
//
// Each attempt is also recorded as a flow.Event with every node's verdict
// and scores: the first recorded attempt that finds a node for a pod with
// stage "scheduled" (before its binding), every other attempt with stage
// 0. The evidence is only built while the recorder has readers
// (flow.Recorder.HasReaders).
// With Config.Gate, a pod is held before its first attempt
// (flow.PointBeforeScheduling) and before its first binding
// (flow.PointBeforeBinding).
//
// The plugins, one file each, keep kube-scheduler's names, reasons, order
// and weights: NodeName, NodeUnschedulable, TaintToleration,
// NodeAffinity, NodeResourcesFit (filter: cpu, memory, pod count; score:
// LeastAllocated) and NodeResourcesBalancedAllocation. Preemption is not
// implemented; its message is worked out by a dry run (preemption.go).
package scheduler
