package scenarios

import (
	"encoding/json"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var webDeployment = ObjectSpec{Kind: "Deployment", Name: "web", Namespace: "default"}

func TestParseScale(t *testing.T) {
	checkParse(t, parseScale, []parseCase[actionRunner]{
		{name: "ok", key: "scale", src: "{deployment: web, replicas: 5}", want: &ScaleAction{Deployment: webDeployment, Replicas: 5}},
		{name: "to zero, in a namespace", key: "scale", src: "{deployment: web, namespace: shop, replicas: 0}",
			want: &ScaleAction{Deployment: ObjectSpec{Kind: "Deployment", Name: "web", Namespace: "shop"}}},
		{name: "no replicas", key: "scale", src: "{deployment: web}", wantErr: `1:1: scale: missing field "replicas"`},
		{name: "no deployment", key: "scale", src: "{replicas: 2}", wantErr: `1:1: scale: missing field "deployment"`},
		{name: "negative", key: "scale", src: "{deployment: web, replicas: -1}", wantErr: `1:29: scale.replicas: -1 is out of range (at least 0)`},
		{name: "a string", key: "scale", src: "{deployment: web, replicas: five}", wantErr: `1:29: scale.replicas: expected an integer, got a string ("five")`},
		{name: "bad name", key: "scale", src: "{deployment: Web, replicas: 1}", wantErr: `1:14: scale.deployment: "Web" is not a valid object name: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`},
		{name: "unknown field", key: "scale", src: "{deployment: web, replica: 1}", wantErr: `1:19: scale: unknown field "replica" (allowed: deployment, namespace, replicas)`},
	})
}

func TestParseSetImage(t *testing.T) {
	checkParse(t, parseSetImage, []parseCase[actionRunner]{
		{name: "ok", key: "setImage", src: "{deployment: web, container: web, image: 'nginx:1.27'}",
			want: &SetImageAction{Deployment: webDeployment, Container: "web", Image: "nginx:1.27"}},
		{name: "no image", key: "setImage", src: "{deployment: web, container: web}", wantErr: `1:1: setImage: missing field "image"`},
		{name: "empty container", key: "setImage", src: "{deployment: web, container: '', image: x}", wantErr: `1:30: setImage.container: empty`},
		{name: "image a number", key: "setImage", src: "{deployment: web, container: web, image: 1}",
			wantErr: `1:42: setImage.image: expected a string, got a number (1)`},
	})
}

func TestParseRolloutUndo(t *testing.T) {
	checkParse(t, parseRolloutUndo, []parseCase[actionRunner]{
		{name: "previous", key: "rolloutUndo", src: "{deployment: web}", want: &RolloutUndoAction{Deployment: webDeployment}},
		{name: "to a revision", key: "rolloutUndo", src: "{deployment: web, toRevision: 2}", want: &RolloutUndoAction{Deployment: webDeployment, ToRevision: 2}},
		{name: "negative revision", key: "rolloutUndo", src: "{deployment: web, toRevision: -2}",
			wantErr: `1:31: rolloutUndo.toRevision: -2 is out of range (at least 0)`},
		{name: "a list", key: "rolloutUndo", src: "[web]", wantErr: `1:1: rolloutUndo: expected a mapping, got a list`},
	})
}

func TestParsePassReadinessGates(t *testing.T) {
	checkParse(t, parsePassReadinessGates, []parseCase[actionRunner]{
		{name: "ok", key: "passReadinessGates", src: "{deployment: web, revision: 2, pods: 3}",
			want: &PassReadinessGatesAction{Deployment: webDeployment, Revision: 2, Pods: 3}},
		{name: "no revision", key: "passReadinessGates", src: "{deployment: web, pods: 3}", wantErr: `1:1: passReadinessGates: missing field "revision"`},
		{name: "no pods", key: "passReadinessGates", src: "{deployment: web, revision: 1}", wantErr: `1:1: passReadinessGates: missing field "pods"`},
		{name: "zero pods", key: "passReadinessGates", src: "{deployment: web, revision: 1, pods: 0}",
			wantErr: `1:38: passReadinessGates.pods: 0 is out of range (at least 1)`},
		{name: "revision 0", key: "passReadinessGates", src: "{deployment: web, revision: 0, pods: 1}",
			wantErr: `1:29: passReadinessGates.revision: 0 is out of range (at least 1)`},
	})
}

// rsOf is a ReplicaSet of web with a revision and an image.
func rsOf(name, revision, image string) *appsv1.ReplicaSet {
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{revisionAnnotation: revision,
			"deployment.kubernetes.io/desired-replicas": "5", "kubernetes.io/change-cause": "set " + image}},
		Spec: appsv1.ReplicaSetSpec{Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web", appsv1.DefaultDeploymentUniqueLabelKey: name}},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: image}}},
		}},
	}
}

// TestRollbackTarget: the ReplicaSet kubectl rollout undo goes back to,
// as its deploymentRevision picks it, whatever the order of the list.
func TestRollbackTarget(t *testing.T) {
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web"}}
	r1, r2, r3, bad := rsOf("a", "1", "v1"), rsOf("b", "3", "v3"), rsOf("c", "2", "v2"), rsOf("d", "x", "v0")
	for _, tc := range []struct {
		name    string
		rss     []*appsv1.ReplicaSet
		to      int64
		want    string
		wantErr string
	}{
		{"previous of three", []*appsv1.ReplicaSet{r1, r2, r3}, 0, "c", ""},
		{"previous, newest first", []*appsv1.ReplicaSet{r2, r3, r1}, 0, "c", ""},
		{"a revision", []*appsv1.ReplicaSet{r1, r2, r3}, 1, "a", ""},
		{"no such revision", []*appsv1.ReplicaSet{r1, r2}, 7, "", "unable to find specified revision 7 in history"},
		{"one revision only", []*appsv1.ReplicaSet{r1, bad}, 0, "", `no rollout history found for deployment "web"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs, err := rollbackTarget(d, tc.rss, tc.to)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || rs.Name != tc.want {
				t.Fatalf("got %v, %v; want ReplicaSet %s", rs, err, tc.want)
			}
		})
	}
}

// TestRollbackPatch: the patch replaces the template (without the hash
// label) and the annotations: the Deployment keeps its revision and
// last-applied ones, the ReplicaSet's others come, its replicas
// annotations do not.
func TestRollbackPatch(t *testing.T) {
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Annotations: map[string]string{
		revisionAnnotation: "2", corev1.LastAppliedConfigAnnotation: "{}", "kubernetes.io/change-cause": "set v2", "team": "a"}}}
	patch, err := rollbackPatch(d, rsOf("web-abc", "1", "v1"))
	if err != nil {
		t.Fatal(err)
	}
	var ops []struct {
		Op, Path string
		Value    json.RawMessage
	}
	if err := json.Unmarshal(patch, &ops); err != nil {
		t.Fatal(err)
	}
	if len(ops) != 2 || ops[0].Op != "replace" || ops[0].Path != "/spec/template" || ops[1].Path != "/metadata/annotations" {
		t.Fatalf("patch %s: want replace /spec/template, then /metadata/annotations", patch)
	}
	var template corev1.PodTemplateSpec
	var annotations map[string]string
	if err := json.Unmarshal(ops[0].Value, &template); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(ops[1].Value, &annotations); err != nil {
		t.Fatal(err)
	}
	if _, ok := template.Labels[appsv1.DefaultDeploymentUniqueLabelKey]; ok || template.Labels["app"] != "web" || template.Spec.Containers[0].Image != "v1" {
		t.Errorf("template %+v: want the ReplicaSet's, without pod-template-hash", template)
	}
	want := map[string]string{revisionAnnotation: "2", corev1.LastAppliedConfigAnnotation: "{}", "kubernetes.io/change-cause": "set v1"}
	if len(annotations) != len(want) {
		t.Errorf("annotations %v, want %v", annotations, want)
	}
	for k, v := range want {
		if annotations[k] != v {
			t.Errorf("annotation %s = %q, want %q (all: %v)", k, annotations[k], v, annotations)
		}
	}
	if got := jsonPatchOps(patch); got != "replace /spec/template, replace /metadata/annotations" {
		t.Errorf("jsonPatchOps = %q", got)
	}
}

func TestSetImagePatch(t *testing.T) {
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{
		Spec: corev1.PodSpec{InitContainers: []corev1.Container{{Name: "init", Image: "busybox"}},
			Containers: []corev1.Container{{Name: "web", Image: "nginx:1.26"}, {Name: "log", Image: "fluent"}}}}}}
	patch, err := setImagePatch(d, "web", "nginx:1.27")
	if err != nil {
		t.Fatal(err)
	}
	want := `{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"web"},{"name":"log"}],"containers":[{"image":"nginx:1.27","name":"web"}]}}}}`
	if string(patch) != want {
		t.Errorf("patch\n got %s\nwant %s", patch, want)
	}
	if patch, err := setImagePatch(d, "init", "busybox:1.36"); err != nil || !strings.Contains(string(patch), "initContainers") {
		t.Errorf("init container: %s, %v", patch, err)
	}
	if patch, err := setImagePatch(d, "web", "nginx:1.26"); err != nil || string(patch) != "{}" {
		t.Errorf("same image: %s, %v; want {}", patch, err)
	}
	if _, err := setImagePatch(d, "db", "mysql"); err == nil || err.Error() != `error: unable to find container named "db"` {
		t.Errorf("unknown container: %v", err)
	}
}
