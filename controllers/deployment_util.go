package controllers

import (
	"fmt"
	"math"
	"sort"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
)

// The annotations the deployment controller writes, as upstream.
const (
	RevisionAnnotation        = "deployment.kubernetes.io/revision"
	RevisionHistoryAnnotation = "deployment.kubernetes.io/revision-history"
	DesiredReplicasAnnotation = "deployment.kubernetes.io/desired-replicas"
	MaxReplicasAnnotation     = "deployment.kubernetes.io/max-replicas"
	// maxRevHistoryLengthInChars bounds the revision-history annotation.
	maxRevHistoryLengthInChars = 2000
)

// The reasons of the Deployment's conditions, as upstream (kubectl
// rollout status looks for ProgressDeadlineExceeded).
const (
	ReasonReplicaSetUpdated  = "ReplicaSetUpdated"
	ReasonFailedRSCreate     = "ReplicaSetCreateError"
	ReasonNewReplicaSet      = "NewReplicaSetCreated"
	ReasonFoundNewRS         = "FoundNewReplicaSet"
	ReasonNewRSAvailable     = "NewReplicaSetAvailable"
	ReasonTimedOut           = "ProgressDeadlineExceeded"
	ReasonPaused             = "DeploymentPaused"
	ReasonResumed            = "DeploymentResumed"
	ReasonMinimumAvailable   = "MinimumReplicasAvailable"
	ReasonMinimumUnavailable = "MinimumReplicasUnavailable"
)

// annotationsNotCopied stay on the Deployment (or the ReplicaSet).
var annotationsNotCopied = map[string]bool{
	corev1.LastAppliedConfigAnnotation: true,
	RevisionAnnotation:                 true,
	RevisionHistoryAnnotation:          true,
	DesiredReplicasAnnotation:          true,
	MaxReplicasAnnotation:              true,
	appsv1.DeprecatedRollbackTo:        true,
}

// fenceposts resolves maxSurge (rounded up) and maxUnavailable (rounded
// down) against desired; both 0 would stall a rollout, so maxUnavailable
// is then 1.
func fenceposts(d *appsv1.Deployment) (surge, unavailable int32) {
	ru := d.Spec.Strategy.RollingUpdate
	if ru == nil {
		return 0, 1
	}
	desired := int(*d.Spec.Replicas)
	s, _ := intstr.GetScaledValueFromIntOrPercent(intstr.ValueOrDefault(ru.MaxSurge, intstr.FromInt32(0)), desired, true)
	u, _ := intstr.GetScaledValueFromIntOrPercent(intstr.ValueOrDefault(ru.MaxUnavailable, intstr.FromInt32(0)), desired, false)
	if s == 0 && u == 0 {
		u = 1
	}
	return int32(s), int32(u)
}

func isRollingUpdate(d *appsv1.Deployment) bool {
	return d.Spec.Strategy.Type == appsv1.RollingUpdateDeploymentStrategyType
}

// maxSurge is how many pods over spec.replicas a rolling update may run.
func maxSurge(d *appsv1.Deployment) int32 {
	if !isRollingUpdate(d) {
		return 0
	}
	s, _ := fenceposts(d)
	return s
}

// maxUnavailable is how many of spec.replicas may be unavailable.
func maxUnavailable(d *appsv1.Deployment) int32 {
	if !isRollingUpdate(d) || *d.Spec.Replicas == 0 {
		return 0
	}
	_, u := fenceposts(d)
	return min(u, *d.Spec.Replicas)
}

// replicaSetName is "<deployment>-<hash>", the deployment's name cut so
// that the whole is a valid name.
func replicaSetName(deployment, hash string) string {
	limit := validation.DNS1123SubdomainMaxLength - 1 - len(hash)
	if len(deployment) > limit && limit > 0 {
		deployment = deployment[:limit]
	}
	return deployment + "-" + hash
}

// equalIgnoreHash compares two pod templates without the
// pod-template-hash label.
func equalIgnoreHash(a, b *corev1.PodTemplateSpec) bool {
	a, b = a.DeepCopy(), b.DeepCopy()
	delete(a.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
	delete(b.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
	return equality.Semantic.DeepEqual(a, b)
}

// revision is the ReplicaSet's revision annotation (0 if none).
func revision(o metav1.Object) (int64, error) {
	v, ok := o.GetAnnotations()[RevisionAnnotation]
	if !ok {
		return 0, nil
	}
	return strconv.ParseInt(v, 10, 64)
}

func maxRevision(rss []*appsv1.ReplicaSet) int64 {
	var most int64
	for _, rs := range rss {
		if v, err := revision(rs); err == nil && v > most {
			most = v
		}
	}
	return most
}

// byCreation sorts ReplicaSets oldest first (then by name), as
// upstream's ReplicaSetsByCreationTimestamp.
func byCreation(rss []*appsv1.ReplicaSet) {
	sort.SliceStable(rss, func(i, j int) bool {
		if rss[i].CreationTimestamp.Equal(&rss[j].CreationTimestamp) {
			return rss[i].Name < rss[j].Name
		}
		return rss[i].CreationTimestamp.Before(&rss[j].CreationTimestamp)
	})
}

// findNewReplicaSet returns the oldest ReplicaSet whose template is the
// deployment's.
func findNewReplicaSet(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) *appsv1.ReplicaSet {
	byCreation(rss)
	for _, rs := range rss {
		if equalIgnoreHash(&rs.Spec.Template, &d.Spec.Template) {
			return rs
		}
	}
	return nil
}

// findOldReplicaSets returns every ReplicaSet but the new one.
func findOldReplicaSets(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
	newRS := findNewReplicaSet(d, rss)
	var old []*appsv1.ReplicaSet
	for _, rs := range rss {
		if newRS == nil || rs.UID != newRS.UID {
			old = append(old, rs)
		}
	}
	return old
}

// activeReplicaSets keeps the non-nil ReplicaSets with replicas > 0.
func activeReplicaSets(rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
	var out []*appsv1.ReplicaSet
	for _, rs := range rss {
		if rs != nil && *rs.Spec.Replicas > 0 {
			out = append(out, rs)
		}
	}
	return out
}

// sumReplicas adds up field over the non-nil ReplicaSets.
func sumReplicas(rss []*appsv1.ReplicaSet, field func(*appsv1.ReplicaSet) int32) int32 {
	var n int32
	for _, rs := range rss {
		if rs != nil {
			n += field(rs)
		}
	}
	return n
}

func specReplicas(rs *appsv1.ReplicaSet) int32      { return *rs.Spec.Replicas }
func statusReplicas(rs *appsv1.ReplicaSet) int32    { return rs.Status.Replicas }
func readyReplicas(rs *appsv1.ReplicaSet) int32     { return rs.Status.ReadyReplicas }
func availableReplicas(rs *appsv1.ReplicaSet) int32 { return rs.Status.AvailableReplicas }

// nonNegativeAnnotation reads a replica-count annotation.
func nonNegativeAnnotation(rs *appsv1.ReplicaSet, key string) (int32, bool) {
	v, ok := rs.Annotations[key]
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(v, 10, 32)
	if err != nil || n > math.MaxInt32 {
		return 0, false
	}
	return int32(n), true
}

// setReplicasAnnotations writes desired-replicas and max-replicas.
func setReplicasAnnotations(rs *appsv1.ReplicaSet, desired, most int32) bool {
	if rs.Annotations == nil {
		rs.Annotations = map[string]string{}
	}
	changed := false
	for k, v := range map[string]string{DesiredReplicasAnnotation: fmt.Sprint(desired), MaxReplicasAnnotation: fmt.Sprint(most)} {
		if rs.Annotations[k] != v {
			rs.Annotations[k] = v
			changed = true
		}
	}
	return changed
}

func hasProgressDeadline(d *appsv1.Deployment) bool {
	return d.Spec.ProgressDeadlineSeconds != nil && *d.Spec.ProgressDeadlineSeconds != math.MaxInt32
}

func hasRevisionHistoryLimit(d *appsv1.Deployment) bool {
	return d.Spec.RevisionHistoryLimit != nil && *d.Spec.RevisionHistoryLimit != math.MaxInt32
}
