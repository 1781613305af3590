package scenarios

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// RolloutUndoAction rolls a Deployment back as kubectl rollout undo
// does (k8s.io/kubectl's DeploymentRollbacker): it finds the ReplicaSet
// of ToRevision (0: the revision before the newest) among the
// Deployment's, and sends one JSON patch that replaces the Deployment's
// pod template with that ReplicaSet's (without its pod-template-hash
// label) and its annotations with the ReplicaSet's (keeping the
// Deployment's own revision, replicas and last-applied annotations). The
// API server and the controller do the rest: the template matches the
// old ReplicaSet again, which becomes the new one, with the next
// revision. A paused Deployment is refused; a template that already
// matches is skipped, as kubectl does.
type RolloutUndoAction struct {
	Deployment ObjectSpec
	ToRevision int64
}

var _ actionRunner = (*RolloutUndoAction)(nil)

// rolloutUndoDoc is rolloutUndo as written.
type rolloutUndoDoc struct {
	deploymentDoc `yaml:",inline"`
	ToRevision    count `yaml:"toRevision"`
}

// undoKeptAnnotations are the Deployment annotations a rollback keeps
// and does not take from the ReplicaSet (kubectl's annotationsToSkip).
var undoKeptAnnotations = map[string]bool{
	corev1.LastAppliedConfigAnnotation:          true,
	revisionAnnotation:                          true,
	revisionHistoryAnnotation:                   true,
	"deployment.kubernetes.io/desired-replicas": true,
	"deployment.kubernetes.io/max-replicas":     true,
	appsv1.DeprecatedRollbackTo:                 true,
}

// undoApplyWarning is what kubectl rollout undo prints about an object
// made with kubectl apply (resource/name, then the annotation).
const undoApplyWarning = "Warning: resource %[1]s was previously managed with 'kubectl apply'. " +
	"Rolling back will not update the %[2]s annotation, which may cause unexpected behavior on future 'kubectl apply' operations. " +
	"Consider using 'kubectl apply' with your previous configuration file instead."

func init() {
	registerTranscriptZh(map[string]string{
		"revision %d, to go back to: ReplicaSet %s (%s)": "要回到的版本 %d：ReplicaSet %s（%s）",
		"> PATCH %s, Content-Type %s: %s":                "> PATCH %s，Content-Type %s：%s",
	})
}

// Kind returns "rolloutUndo".
func (a *RolloutUndoAction) Kind() string { return "rolloutUndo" }

// String is the kubectl command it does.
func (a *RolloutUndoAction) String() string {
	s := "kubectl rollout undo " + deploymentName(a.Deployment)
	if a.ToRevision > 0 {
		s += fmt.Sprintf(" --to-revision=%d", a.ToRevision)
	}
	return s
}

// parseRolloutUndo reads {deployment, namespace, toRevision};
// toRevision (default 0, the previous revision) is 0 or more.
func parseRolloutUndo(_ *loader, _ string, n *yaml.Node) (actionRunner, error) {
	var d rolloutUndoDoc
	if err := decode(n, &d); err != nil {
		return nil, err
	}
	return &RolloutUndoAction{Deployment: d.ref(), ToRevision: int64(d.ToRevision)}, nil
}

// run does what kubectl's DeploymentRollbacker.Rollback does, as user.
func (a *RolloutUndoAction) run(ctx context.Context, p *player, user string) (StepResult, error) {
	d, err := p.getDeployment(ctx, a.Deployment, user)
	if err != nil {
		return resultOf(err, http.StatusOK), err
	}
	res := StepResult{Status: http.StatusOK}
	if _, ok := d.Annotations[corev1.LastAppliedConfigAnnotation]; ok {
		addTranscript(&res, "%s", fmt.Sprintf(undoApplyWarning, "deployments/"+d.Name, corev1.LastAppliedConfigAnnotation))
	}
	rss, err := p.replicaSetsOf(ctx, d, user)
	if err != nil {
		return resultOf(err, http.StatusOK), err
	}
	rs, err := rollbackTarget(d, rss, a.ToRevision)
	if err != nil {
		res.Status, res.Message = 0, err.Error()
		return res, err
	}
	addTranscript(&res, "revision %d, to go back to: ReplicaSet %s (%s)", rsRevision(rs), rs.Name, templateImages(&rs.Spec.Template))
	if d.Spec.Paused {
		err := fmt.Errorf("you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume' and try again")
		res.Status, res.Message = 0, err.Error()
		return res, err
	}
	if templatesEqualIgnoringHash(&rs.Spec.Template, &d.Spec.Template) {
		addTranscript(&res, "%s", kubectlOutput(a.Deployment, fmt.Sprintf("skipped rollback (current template already matches revision %d)", a.ToRevision)))
		return res, nil
	}
	patch, err := rollbackPatch(d, rs)
	if err != nil {
		res.Status, res.Message = 0, err.Error()
		return res, err
	}
	addTranscript(&res, "> PATCH %s, Content-Type %s: %s", "deployments/"+d.Name, string(types.JSONPatchType), jsonPatchOps(patch))
	ri, err := p.resource(a.Deployment, user)
	if err != nil {
		return StepResult{}, err
	}
	u, err := ri.Patch(ctx, d.Name, types.JSONPatchType, patch, metav1.PatchOptions{})
	p.remember(u)
	if err != nil {
		err = fmt.Errorf("failed restoring revision %d: %w", rsRevision(rs), err)
		failed := resultOf(err, http.StatusOK)
		res.Status, res.Message = failed.Status, failed.Message
		return res, err
	}
	addTranscript(&res, "%s", kubectlOutput(a.Deployment, "rolled back"))
	return res, nil
}

// rollbackTarget picks the ReplicaSet to go back to, as kubectl's
// deploymentRevision: of revision toRevision, or for 0 the one of the
// second highest revision.
func rollbackTarget(d *appsv1.Deployment, rss []*appsv1.ReplicaSet, toRevision int64) (*appsv1.ReplicaSet, error) {
	var latest, previous *appsv1.ReplicaSet
	latestRev, previousRev := int64(-1), int64(-1)
	for _, rs := range rss {
		v := rsRevision(rs)
		if v < 0 {
			continue
		}
		switch {
		case toRevision > 0:
			if v == toRevision {
				return rs, nil
			}
		case latestRev < v:
			previous, previousRev = latest, latestRev
			latest, latestRev = rs, v
		case previousRev < v:
			previous, previousRev = rs, v
		}
	}
	if toRevision > 0 {
		return nil, fmt.Errorf("unable to find specified revision %d in history", toRevision)
	}
	if previous == nil {
		return nil, fmt.Errorf("no rollout history found for deployment %q", d.Name)
	}
	return previous, nil
}

// rollbackPatch is kubectl's JSON patch: replace /spec/template with
// rs's (without the pod-template-hash label) and /metadata/annotations
// with d's kept ones plus rs's others.
func rollbackPatch(d *appsv1.Deployment, rs *appsv1.ReplicaSet) ([]byte, error) {
	template := rs.Spec.Template.DeepCopy()
	delete(template.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
	annotations := map[string]string{}
	for k := range undoKeptAnnotations {
		if v, ok := d.Annotations[k]; ok {
			annotations[k] = v
		}
	}
	for k, v := range rs.Annotations {
		if !undoKeptAnnotations[k] {
			annotations[k] = v
		}
	}
	return json.Marshal([]any{
		map[string]any{"op": "replace", "path": "/spec/template", "value": template},
		map[string]any{"op": "replace", "path": "/metadata/annotations", "value": annotations},
	})
}

// templatesEqualIgnoringHash compares two pod templates but for their
// pod-template-hash labels, as kubectl's equalIgnoreHash.
func templatesEqualIgnoringHash(a, b *corev1.PodTemplateSpec) bool {
	a, b = a.DeepCopy(), b.DeepCopy()
	delete(a.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
	delete(b.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
	return apiequality.Semantic.DeepEqual(a, b)
}

// jsonPatchOps lists a JSON patch's operations as "replace /spec/template".
func jsonPatchOps(patch []byte) string {
	var ops []struct{ Op, Path string }
	if err := json.Unmarshal(patch, &ops); err != nil {
		return string(patch)
	}
	parts := make([]string, len(ops))
	for i, op := range ops {
		parts[i] = op.Op + " " + op.Path
	}
	return strings.Join(parts, ", ")
}

// templateImages lists the images of a pod template's containers.
func templateImages(t *corev1.PodTemplateSpec) string {
	var images []string
	for _, c := range t.Spec.Containers {
		images = append(images, c.Image)
	}
	return strings.Join(images, ", ")
}
