// Package controllers is kubesim's kube-controller-manager: controllers
// that watch the API through client-go shared informers, put the keys of
// the objects to look at on rate-limited workqueues, and bring the
// cluster towards what the objects ask for, through the API server only
// (it never imports apiserver). The manager's own user,
// system:kube-controller-manager, runs the shared informers, makes a
// service account kube-system/<controller> for each controller and asks
// for its tokens (TokenRequest, an hour, renewed after 80% of it); each
// controller's requests carry its own token, so the API server sees
// system:serviceaccount:kube-system:replicaset-controller create pods
// (credentials.go; upstream's --use-service-account-credentials, which
// kubeadm sets).
//
// The controllers of the first lessons, each in its own files, follow
// upstream's (k8s.io/kubernetes v1.37 pkg/controller) and are written
// here, so that each sync reports what it saw and decided (Action),
// except where upstream calls a staging library kubesim imports too
// (k8s.io/endpointslice, k8s.io/component-helpers) and calling it loses
// no evidence a learner reads. The controllers of the workloads kinds
// are upstream's own code, built as kube-controller-manager builds them
// (upstream.go): their behaviour is exactly upstream's, and what a
// learner sees of them is their writes (each reported as an Action
// without decisions), their Events and the objects they change:
//
//   - statefulset-controller (statefulset.go), daemon-set-controller
//     (daemonset.go), job-controller (job.go), cronjob-controller
//     (cronjob.go, on the wall clock), ttl-after-finished-controller
//     (ttlafterfinished.go), disruption-controller (disruption.go),
//     horizontal-pod-autoscaler (podautoscaler.go, its periods divided
//     by the speed) and replication-controller (replication.go).
//
// The controllers written here:
//
//   - replicaset (replicaset*.go): keeps spec.replicas pods that match the
//     selector, created from the template with an ownerReference to the
//     ReplicaSet (controller: true, blockOwnerDeletion: true) and the
//     name prefix "<replicaset>-"; creates in slow-start batches (1, 2, 4,
//     ...) of at most 500 per sync, and waits for its own creations and
//     deletions to be seen by the informer before it counts again
//     (expectations.go); adopts matching orphans and releases pods that no
//     longer match (claim.go); deletes the pods upstream would delete
//     first (pod_ranking.go); writes replicas, fullyLabeledReplicas,
//     readyReplicas, availableReplicas (minReadySeconds) and
//     observedGeneration.
//   - deployment (deployment*.go): one ReplicaSet per pod template,
//     named "<deployment>-<pod-template-hash>"; RollingUpdate within
//     maxSurge and maxUnavailable, Recreate; proportional scaling; the
//     revision annotation and revisionHistoryLimit; the Progressing and
//     Available conditions kubectl rollout status reads.
//   - garbagecollector (garbagecollector*.go): a graph of ownerReferences
//     over every resource the API server serves that can be listed,
//     watched and deleted; deletes dependents whose owners are gone
//     (background), deletes the dependents of an owner with the
//     foregroundDeletion finalizer first, and orphans the dependents of
//     an owner with the orphan finalizer.
//   - endpointslice-controller (endpointslice*.go): for each Service with
//     a selector, EndpointSlices (generateName "<service>-", owned by the
//     Service, labelled kubernetes.io/service-name and
//     endpointslice.kubernetes.io/managed-by=endpointslice-controller.k8s.io)
//     per address type and per set of ports the Service's targetPorts
//     resolve to in each pod, at most 100 endpoints a slice (filled and
//     reused by k8s.io/endpointslice's Reconciler, which upstream's
//     controller calls too; one empty slice for a Service without
//     endpoints); each endpoint has the pod's IP, node, targetRef and the
//     conditions ready (serving and not terminating, or always with
//     publishNotReadyAddresses), serving (the pod's Ready) and
//     terminating (its deletionTimestamp); trafficDistribution's hints
//     too, but not those of the topology-aware-hints annotation.
//   - endpoint-controller (endpoints*.go): the core/v1 Endpoints of each
//     such Service, ready pods in addresses, the others in
//     notReadyAddresses, repacked per port set; the
//     last-change-trigger-time annotation (also on the slices), and past
//     1000 addresses truncation with endpoints.kubernetes.io/over-capacity.
//   - service-account-controller (serviceaccount.go): the ServiceAccount
//     "default" in every Active namespace, made again when deleted; the
//     API server's ServiceAccount admission plugin rejects pods in a
//     namespace until it exists.
//   - root-ca-cert-publisher (rootcacert.go): the ConfigMap
//     kube-root-ca.crt in every namespace, with the cluster's CA (the one
//     the manager's client trusts the API server with) under ca.crt; pods
//     get it in their projected token volume.
//   - clusterrole-aggregation-controller (clusterroleaggregation.go): the
//     rules of each ClusterRole with an aggregationRule, gathered from the
//     ClusterRoles its selectors match (admin, edit and view), written by
//     an update where upstream uses server-side apply.
//   - namespace-controller (namespace*.go): for a namespace being
//     deleted (5 s after it sees the deletionTimestamp, divided by the
//     speed), deletes every namespaced resource discovery lists as
//     deletable, custom and aggregated ones too, pods first and the rest
//     once no pod is left (deletecollection, or list and delete; through
//     the metadata client, propagationPolicy Background); keeps upstream's
//     five deletion conditions in its status (NamespaceContentRemaining,
//     NamespaceFinalizersRemaining ...); while content remains tries again
//     after half the pods' grace period or of 15 s for finalizers, plus
//     one second; then drops the "kubernetes" finalizer through
//     namespaces/finalize, which removes the namespace.
//   - node-lifecycle-controller (nodelifecycle*.go, as the service
//     account node-controller): a node whose Lease in kube-node-lease and
//     Ready heartbeat have not changed for 50 s gets its Ready,
//     MemoryPressure, DiskPressure and PIDPressure conditions Unknown
//     (NodeStatusUnknown), its pods Ready=False, the NoSchedule taints of
//     its conditions and, through a rate-limited queue per zone (0.1
//     nodes a second; none when no node anywhere is Ready), the NoExecute
//     taint node.kubernetes.io/unreachable (not-ready for Ready False);
//     the taints go when it is Ready again.
//   - taint-eviction-controller (tainteviction*.go, also as
//     node-controller): deletes the pods of a NoExecute-tainted node that
//     do not tolerate the taint at once, and the others when their
//     tolerationSeconds run out (DisruptionTarget DeletionByTaintManager,
//     the event TaintManagerEviction).
//   - pod-garbage-collector (podgc*.go): force-deletes the pods of a node
//     gone for 40 s, finished pods over 12500, and pods being deleted that
//     no node will finish.
//     The node health periods of these three (and the kubelets' Lease)
//     run at NodeHealthSpeed: the speed, or 20 at speed 0.
//
// Manager (manager.go) builds and starts them on one shared informer
// factory, from the one list of them, newControllerDescriptors
// (descriptors.go), in kube-controller-manager's order.
package controllers
