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
// The controllers, each in its own files, follow upstream's
// (k8s.io/kubernetes v1.37 pkg/controller); the code is written here:
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
//
// Manager (manager.go) starts them on one shared informer factory.
package controllers
