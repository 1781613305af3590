package scenarios

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	yaml "go.yaml.in/yaml/v3"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// PassReadinessGatesAction plays the controller behind a pod readiness
// gate (spec.readinessGates: in a cloud, a load balancer's controller
// that marks a pod once its health check passes): it sets the conditions
// of every readiness gate of Pods pods of the Deployment's ReplicaSet of
// Revision to True, one pod after the other, oldest first, with a
// strategic merge patch of pods/<name>/status. The kubelet then reports
// the pod Ready (it does so only when its containers are ready and every
// gate's condition is True). Pods whose gates are True already do not
// count; while fewer pods than Pods are there to pass, it waits for the
// ReplicaSet to make more (within the step's timeout), so that it can
// let a whole rollout through.
type PassReadinessGatesAction struct {
	Deployment ObjectSpec
	Revision   int64
	Pods       int
}

var _ actionRunner = (*PassReadinessGatesAction)(nil)

// passReadinessGatesDoc is passReadinessGates as written.
type passReadinessGatesDoc struct {
	deploymentDoc `yaml:",inline"`
	Revision      positive `yaml:"revision" load:"required"`
	Pods          positive `yaml:"pods" load:"required"`
}

// gatePollInterval is how often the action looks for more pods to pass.
const gatePollInterval = 50 * time.Millisecond

func init() {
	registerTranscriptZh(map[string]string{
		"pod %s: %s True (PATCH pods/%s/status)": "Pod %s：%s 置为 True（PATCH pods/%s/status）",
	})
}

// Kind returns "passReadinessGates".
func (a *PassReadinessGatesAction) Kind() string { return "passReadinessGates" }

// String says what it does, for people.
func (a *PassReadinessGatesAction) String() string {
	pods := "pods"
	if a.Pods == 1 {
		pods = "pod"
	}
	return fmt.Sprintf("pass the readiness gates of %d %s of %s, revision %d", a.Pods, pods, deploymentName(a.Deployment), a.Revision)
}

// parsePassReadinessGates reads {deployment, namespace, revision, pods}:
// revision and pods are required, at least 1.
func parsePassReadinessGates(_ *loader, _ string, n *yaml.Node) (actionRunner, error) {
	var d passReadinessGatesDoc
	if err := decode(n, &d); err != nil {
		return nil, err
	}
	return &PassReadinessGatesAction{Deployment: d.ref(), Revision: int64(d.Revision), Pods: int(d.Pods)}, nil
}

// run passes pods until Pods of them are passed, or ctx ends.
func (a *PassReadinessGatesAction) run(ctx context.Context, p *player, user string) (StepResult, error) {
	res := StepResult{}
	passed := 0
	for {
		rs, err := p.replicaSetOfRevision(ctx, a.Deployment, a.Revision, user)
		if err != nil {
			return resultOf(err, http.StatusOK), err
		}
		pods, err := p.gatedPods(ctx, rs, user)
		if err != nil {
			return resultOf(err, http.StatusOK), err
		}
		for _, pod := range pods {
			if passed == a.Pods {
				break
			}
			if err := p.passGates(ctx, pod, user, &res); err != nil {
				return resultOf(err, http.StatusOK), err
			}
			passed++
		}
		if passed == a.Pods {
			res.Status = http.StatusOK
			return res, nil
		}
		if err := sleep(ctx, gatePollInterval); err != nil {
			return res, fmt.Errorf("passed the readiness gates of %d pods of ReplicaSet %s, waited for %d more: %w", passed, rs.Name, a.Pods-passed, err)
		}
	}
}

// gatedPods lists rs's pods (controlled by it, not being deleted) that
// have a readiness gate not yet True, oldest first; a pod without
// readiness gates is an error.
func (p *player) gatedPods(ctx context.Context, rs *appsv1.ReplicaSet, user string) ([]*corev1.Pod, error) {
	pods, err := listControlled[corev1.Pod](ctx, p, "Pod", rs, rs.Spec.Selector, user)
	if err != nil {
		return nil, err
	}
	var out []*corev1.Pod
	for _, pod := range pods {
		if pod.DeletionTimestamp != nil {
			continue
		}
		if len(pod.Spec.ReadinessGates) == 0 {
			return nil, fmt.Errorf("pod %s has no readiness gates (spec.readinessGates) to pass", pod.Name)
		}
		if len(closedGates(pod)) > 0 {
			out = append(out, pod)
		}
	}
	return out, nil
}

// closedGates are the condition types of pod's readiness gates whose
// conditions are not True.
func closedGates(pod *corev1.Pod) []corev1.PodConditionType {
	var out []corev1.PodConditionType
	for _, g := range pod.Spec.ReadinessGates {
		open := false
		for _, c := range pod.Status.Conditions {
			if c.Type == g.ConditionType && c.Status == corev1.ConditionTrue {
				open = true
			}
		}
		if !open {
			out = append(out, g.ConditionType)
		}
	}
	return out
}

// passGates sets pod's closed gates' conditions True with one status
// patch, and writes a transcript line for each.
func (p *player) passGates(ctx context.Context, pod *corev1.Pod, user string, res *StepResult) error {
	now := metav1.Now()
	var conds []corev1.PodCondition
	for _, t := range closedGates(pod) {
		conds = append(conds, corev1.PodCondition{Type: t, Status: corev1.ConditionTrue, LastTransitionTime: now})
	}
	patch, err := json.Marshal(map[string]any{"status": map[string]any{"conditions": conds}})
	if err != nil {
		return err
	}
	ri, err := p.resource(ObjectSpec{Kind: "Pod", Namespace: pod.Namespace}, user)
	if err != nil {
		return err
	}
	if _, err := ri.Patch(ctx, pod.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status"); err != nil {
		return fmt.Errorf("pod %s: %w", pod.Name, err)
	}
	for _, c := range conds {
		addTranscript(res, "pod %s: %s True (PATCH pods/%s/status)", pod.Name, string(c.Type), pod.Name)
	}
	return nil
}
