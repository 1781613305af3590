package controllers

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
)

// The NoExecute taints the node lifecycle controller puts on a node whose
// Ready condition is Unknown (unreachable) or False (not-ready); a node
// has at most one of them.
var (
	unreachableTaint = corev1.Taint{Key: corev1.TaintNodeUnreachable, Effect: corev1.TaintEffectNoExecute}
	notReadyTaint    = corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoExecute}
)

// conditionTaintKeys says which NoSchedule taint a node gets for a
// condition in a status (upstream's nodeConditionToTaintKeyStatusMap).
var conditionTaintKeys = map[corev1.NodeConditionType]map[corev1.ConditionStatus]string{
	corev1.NodeReady: {
		corev1.ConditionFalse:   corev1.TaintNodeNotReady,
		corev1.ConditionUnknown: corev1.TaintNodeUnreachable,
	},
	corev1.NodeMemoryPressure:     {corev1.ConditionTrue: corev1.TaintNodeMemoryPressure},
	corev1.NodeDiskPressure:       {corev1.ConditionTrue: corev1.TaintNodeDiskPressure},
	corev1.NodeNetworkUnavailable: {corev1.ConditionTrue: corev1.TaintNodeNetworkUnavailable},
	corev1.NodePIDPressure:        {corev1.ConditionTrue: corev1.TaintNodePIDPressure},
}

// conditionTaintKey reports whether key is one of conditionTaintKeys'.
func conditionTaintKey(key string) bool {
	for _, byStatus := range conditionTaintKeys {
		for _, k := range byStatus {
			if k == key {
				return true
			}
		}
	}
	return false
}

// updateTaintBackoff is upstream's UpdateTaintBackoff: how a taint patch
// that met a conflict is retried.
var updateTaintBackoff = wait.Backoff{Steps: 5, Duration: 100 * time.Millisecond, Jitter: 1.0}

// The taint helpers below are upstream's pkg/util/taints (TaintExists,
// AddOrUpdateTaint, DeleteTaint), which lives in k8s.io/kubernetes, not in
// a staging library kubesim imports; k8s.io/component-helpers has none of
// them. Two taints match as k8s.io/api's Taint.MatchTaint says: same key
// and effect.

// hasTaint reports whether taints has one matching t.
func hasTaint(taints []corev1.Taint, t *corev1.Taint) bool {
	for i := range taints {
		if taints[i].MatchTaint(t) {
			return true
		}
	}
	return false
}

// withTaint returns taints with t added, or put in the place of the one
// it matches; false if that one is the same already.
func withTaint(taints []corev1.Taint, t corev1.Taint) ([]corev1.Taint, bool) {
	out := make([]corev1.Taint, 0, len(taints)+1)
	replaced := false
	for _, have := range taints {
		if have.MatchTaint(&t) {
			if apiequality.Semantic.DeepEqual(have, t) {
				return taints, false
			}
			out, replaced = append(out, t), true
			continue
		}
		out = append(out, have)
	}
	if !replaced {
		out = append(out, t)
	}
	return out, true
}

// withoutTaint returns taints without the ones matching t; false if there
// were none.
func withoutTaint(taints []corev1.Taint, t corev1.Taint) ([]corev1.Taint, bool) {
	var out []corev1.Taint
	for _, have := range taints {
		if !have.MatchTaint(&t) {
			out = append(out, have)
		}
	}
	return out, len(out) != len(taints)
}

// taintPatcher changes nodes' taints as upstream's AddOrUpdateTaintOnNode
// and RemoveTaintOffNode: read the Node (first from the API server's
// cache, resourceVersion 0, then fresh), change spec.taints, and send a
// strategic merge patch that carries the resourceVersion read, so that a
// concurrent change is a 409 Conflict and is retried.
type taintPatcher struct {
	client kubernetes.Interface
	// wrote is told of each patch sent ("PATCH nodes node-2 → 200").
	wrote func(string)
}

// addTaints puts taints (each with timeAdded now, as upstream's
// SwapNodeControllerTaint) on the node; it reports whether it patched.
func (p taintPatcher) addTaints(ctx context.Context, node string, taints ...corev1.Taint) (bool, error) {
	now := metav1.Now()
	return p.change(ctx, node, func(have []corev1.Taint) ([]corev1.Taint, bool) {
		changed := false
		for _, t := range taints {
			t.TimeAdded = &now
			var ok bool
			have, ok = withTaint(have, t)
			changed = changed || ok
		}
		return have, changed
	})
}

// removeTaints takes taints off the node; known, if not nil, is the node
// as the informer has it: without any of taints nothing is sent.
func (p taintPatcher) removeTaints(ctx context.Context, node string, known *corev1.Node, taints ...corev1.Taint) (bool, error) {
	if known != nil && !hasAnyTaint(known.Spec.Taints, taints) {
		return false, nil
	}
	return p.change(ctx, node, func(have []corev1.Taint) ([]corev1.Taint, bool) {
		changed := false
		for _, t := range taints {
			var ok bool
			have, ok = withoutTaint(have, t)
			changed = changed || ok
		}
		return have, changed
	})
}

func hasAnyTaint(have, taints []corev1.Taint) bool {
	for i := range taints {
		if hasTaint(have, &taints[i]) {
			return true
		}
	}
	return false
}

// change applies edit to the node's taints and patches them, retrying on
// conflict.
func (p taintPatcher) change(ctx context.Context, name string, edit func([]corev1.Taint) ([]corev1.Taint, bool)) (bool, error) {
	patched := false
	opts := metav1.GetOptions{ResourceVersion: "0"}
	err := retry.RetryOnConflict(updateTaintBackoff, func() error {
		node, err := p.client.CoreV1().Nodes().Get(ctx, name, opts)
		opts.ResourceVersion = ""
		if err != nil {
			return err
		}
		taints, changed := edit(node.Spec.Taints)
		if !changed {
			return nil
		}
		patch, err := taintsPatch(node, taints)
		if err != nil {
			return err
		}
		_, err = p.client.CoreV1().Nodes().Patch(ctx, name, types.StrategicMergePatchType, patch, metav1.PatchOptions{})
		if p.wrote != nil {
			p.wrote(fmt.Sprintf("PATCH nodes %s (spec.taints) → %s", name, statusWord(err)))
		}
		patched = err == nil
		return err
	})
	return patched, err
}

// taintsPatch is the strategic merge patch from node (its resourceVersion
// left out of the original, so that the patch carries it) to node with
// taints, as upstream's PatchNodeTaints.
func taintsPatch(node *corev1.Node, taints []corev1.Taint) ([]byte, error) {
	old := node.DeepCopy()
	old.ResourceVersion = ""
	oldData, err := json.Marshal(old)
	if err != nil {
		return nil, err
	}
	updated := node.DeepCopy()
	updated.Spec.Taints = taints
	newData, err := json.Marshal(updated)
	if err != nil {
		return nil, err
	}
	return strategicpatch.CreateTwoWayMergePatch(oldData, newData, corev1.Node{})
}
