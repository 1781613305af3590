// Package kubelet is kubesim's fake kubelet: one per simulated node. It
// talks to the API server only through client-go, over HTTPS, as
// system:node:<node> in group system:nodes, so the Node authorizer and
// the NodeRestriction admission plugin judge it as they judge a real
// kubelet. It never imports the apiserver package.
//
// A Kubelet does what a real one does that can be seen from the API:
//
//   - Registers its Node (create; on 409 AlreadyExists it updates the
//     existing one): capacity and allocatable (allocatable keeps back the
//     default eviction thresholds, 100Mi of memory and 10% of ephemeral
//     storage), the conditions MemoryPressure, DiskPressure, PIDPressure
//     (False) and Ready (True, KubeletReady), nodeInfo, addresses
//     (InternalIP, Hostname), spec.podCIDR, its labels and taints. It
//     renews its Lease in kube-node-lease every quarter of LeaseDuration:
//     the Lease is the node's heartbeat. Every StatusUpdateFrequency (10 s)
//     it reads its Node and computes its status, and patches
//     nodes/<node>/status only when the status changed (heartbeat times
//     aside) or StatusReportFrequency (5 min) has passed since the last
//     report, as the kubelet's nodeStatusUpdateFrequency and
//     nodeStatusReportFrequency say.
//   - Watches only its own pods (an informer with the field selector
//     spec.nodeName=<node>, the only pod list the Node authorizer allows).
//   - Runs them in a fake container runtime, one pod worker per pod: the
//     sandbox (the pod IP, from the node's PodCIDR), then the init
//     containers one after another, then the app containers, each pulled
//     (once per node for imagePullPolicy IfNotPresent, every start for
//     Always), created and started. It records the kubelet's events
//     (Pulling, Pulled, Created, Started, Killing, BackOff, Failed) with
//     v1.37's wording, and reports every runtime action to the flow
//     recorder: those of the pod's first start with stage
//     kubelet-notified, restarts, exits and kills with stage 0.
//   - Writes pod status as the status manager does: a strategic merge
//     patch of pods/<name>/status (with $setElementOrder for the
//     conditions, and metadata.uid as a precondition) computed from the
//     stored status, read just before (upstream's syncPod reads the pod
//     from the API server too, not from its informer), skipped when it
//     would change nothing. One status per sync of the pod: the worker
//     first takes every step due by then (at speed 0 the sandbox, pulls,
//     creates and starts of one go), so the statuses in between are never
//     sent, as the status manager keeps only the latest status of a pod
//     until it syncs it. Each patch is
//     reported to the flow recorder just before it is sent, with the body
//     as sent: the one that first moves the phase off Pending with stage
//     status-reported, the others with stage 0.
//   - Restarts exited containers as the restart policy says, with the
//     CrashLoopBackOff back-off (10s doubling to 5 min, reset after 10
//     minutes without trouble); retries failed pulls with the
//     ImagePullBackOff back-off (the same numbers).
//   - On graceful deletion stops the containers within the grace period,
//     writes the final status, and deletes the pod with
//     gracePeriodSeconds=0.
//   - When a new Kubelet starts for a node that already has pods (the
//     same data dir), adopts them from their status: running containers
//     keep their IDs and start times and get no new events.
//
// # Hollow kubelets
//
// A Kubelet with Config.Hollow is one of a HollowHost's hollow nodes: it
// gets its pods from the host's one informer of all pods (dispatched by
// spec.nodeName) instead of its own watch, reads its Node for the status
// check from the host's Node informer instead of a GET, and registers in
// one of the host's registration slots. Everything else (the Lease, the
// Node's creation and status patches, pod status, events) it does as any
// kubelet. The lease and status loops of every kubelet wait up to 4%
// longer than their period, as upstream's jitter.
//
// # Step gate
//
// With Config.Gate, a pod's worker waits at the gate twice, once each:
// at flow.PointBeforeContainers after its first (Pending) status and
// before its sandbox, pulls and creates; and at
// flow.PointBeforeStatusReport before the patch that first moves its
// phase off Pending. Only that pod waits; the lease, the node status and
// the other pods' workers go on, each as far as the gate lets it.
//
// # Speed
//
// Every simulated delay (pull, create, start, readiness, the annotations
// below, grace periods) and every back-off is divided by Config.Speed.
// Speed 0 means no simulated delay at all; back-offs then run as at speed
// 1000 (ZeroSpeedBackOffDivisor), so that a crash loop does not spin. The
// lease and node status periods are not scaled by Config.Speed: the
// cluster scales them itself, all by the same factor, the one the node
// lifecycle controller's periods run at.
//
// # Simulated containers
//
// No process runs. A container's command line (command and args; args
// alone when it has no command, unless they are only options such as
// "--port=80") is played by a small model when the container starts
// (command.go): echo (-n, -e), printf, sleep N (divided by the speed,
// like every simulated delay), exit N, true, false, date, hostname, and
// sh -c (bash, ash...) scripts of those joined by ;, newlines, && and
// ||, with quotes, comments, set -e/-x and the container's variables
// ($NAME; $(NAME) in command and args as the kubelet expands it); and
// wget, curl and nc of a Service's DNS name (svc, svc.ns, svc.ns.svc,
// svc.ns.svc.cluster.local), which succeed when the Service has ready
// endpoints and fail as BusyBox's and curl's do otherwise ("wget: bad
// address 'x'" for a name no Service has, "can't connect to remote host
// (10.96.x.y): Connection refused" for a Service without ready
// endpoints). The kubelet learns that with its node identity: a GET of
// services/<name> and endpoints/<name>, reads system:node allows. What
// the command line writes is the container's log (at its times), and
// its end is the container's exit: exit code, reason Completed (0) or
// Error, start and finish times, as a real kubelet reports them; the
// restart policy and the back-off then apply as to any exit. A program
// it does not know (nginx, python, a while loop, a pipe, a host outside
// the cluster) runs until the container is stopped, and the log has one
// line saying kubesim does not simulate it. A container without a
// command line runs its image's program until it is stopped, and its
// log is made up as below. An init container whose command line does
// not end exits with 0 at once.
//
// The annotations below win over the command line: kubesim.io/exit-after
// decides when the container exits, kubesim.io/exit-code with which
// code. Each annotation applies to every app container of the pod;
// with ".<container>" appended to its key, to that container only (init
// containers too), overriding the pod-wide value. Durations are Go
// durations ("5s", "1m30s") or whole seconds ("5").
//
//	kubesim.io/exit-after: 5s       the container exits 5s after it started
//	kubesim.io/exit-code: "1"       ... with this code (default 0)
//	kubesim.io/ready-after: 3s      it is ready 3s after it started
//	                                (default: at once, or a readiness
//	                                probe's initialDelaySeconds)
//	kubesim.io/readiness: fail      its readiness probe fails from now on:
//	                                it runs but is not ready, nor is the
//	                                pod, until the value is "pass" again
//	                                (read each time the pod changes; a
//	                                real probe takes failureThreshold
//	                                periods, 3 x 10s by default, to say so)
//	kubesim.io/stop-after: 10s      it takes 10s to exit when stopped;
//	                                past the grace period it is killed
//	                                with exit code 137
//	kubesim.io/exit-after.migrate: 2s   only the container "migrate"
//
//	kubesim.io/log: |               lines it writes after its image's
//	  hello                          start lines; "+5s text" is written
//	  every 2s tick {n}              5s after the start, "every 2s" repeats
//
// # Logs
//
// No process runs: each container's log is made up when it starts (what
// its command line writes; or without one a line saying no process runs
// and start lines in the style of nginx, mysql, postgres, redis or
// httpd; then the kubesim.io/log lines, and for kubesim.io/exit-after a
// last line saying why it exits), and its lines appear as their times come. Logs are kept
// per container ID until the pod is gone, so the previous instance's
// stays after a restart. With Config.Serving the kubelet serves them over
// HTTPS at /containerLogs/<namespace>/<pod>/<container> (follow,
// previous, tailLines, timestamps, sinceSeconds, sinceTime, limitBytes,
// with the kubelet's error texts) and advertises its port in
// status.daemonEndpoints, for the API server's pods/log.
//
// Init containers without a command line that ends exit as soon as
// they have started unless kubesim.io/exit-after.<name> says otherwise;
// kubesim.io/exit-code.<name> makes one fail.
//
// # Images
//
// Images are pulled from a simulated registry whose catalogue
// (images.txt, changed by Config.Images) lists repositories and their
// tags: common images (nginx, busybox, redis, mysql, postgres, python,
// registry.k8s.io/pause...). An image it does not have cannot be pulled:
// ErrImagePull with containerd's error ("...: not found" for a tag the
// repository does not have, "pull access denied, repository does not
// exist..." for a repository it does not have, such as ngnix), then
// ImagePullBackOff. The tag "does-not-exist" never exists.
//
// With restartPolicy Always a container that exits is restarted; with
// OnFailure only after a non-zero exit code; with Never the pod ends
// Succeeded (every container exited 0) or Failed.
//
// A pod running longer than its activeDeadlineSeconds (which may be set
// while it runs) fails with reason DeadlineExceeded and its containers are
// stopped, as the kubelet's active deadline handler does.
//
// # ConfigMaps and Secrets
//
// Before it creates a container the kubelet reads (GET, as the Node
// authorizer allows for the objects its pods use) the ConfigMaps and
// Secrets its environment names (envFrom, env valueFrom); one missing
// or without the key, and not optional, fails the creation with
// CreateContainerConfigError and a Failed event in the kubelet's words
// (`configmap "x" not found`, "couldn't find key k in ConfigMap ns/x"),
// retried at the next sync (10 s, divided by the speed) until it is
// there; the variables it gets are seen by the command line. Before the
// sandbox it checks the pod's configMap and secret volumes: a missing
// one keeps the pod ContainerCreating with FailedMount events
// (podconfig.go, podvolumes.go).
//
// Not simulated: restartable init containers (sidecars) run as plain init
// containers; probes other than a readiness probe's initial delay; resizes;
// changes to a running pod's spec; volumes other than the configMap and
// secret volumes' check. Static pods (Config.StaticPods) are run through
// their mirror pods (staticpods.go).
package kubelet
