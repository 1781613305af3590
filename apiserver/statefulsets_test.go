package apiserver_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// testStatefulSet is a StatefulSet of replicas pods labelled app=name,
// with one volume claim template, "data".
func testStatefulSet(name string, replicas int32) *appsv1.StatefulSet {
	labels := map[string]string{"app": name}
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.StatefulSetSpec{
			ServiceName: name,
			Replicas:    ptr.To(replicas),
			Selector:    &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: name, Image: name + ":8"}}},
			},
			VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{
				ObjectMeta: metav1.ObjectMeta{Name: "data"},
				Spec: corev1.PersistentVolumeClaimSpec{
					AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
				},
			}},
		},
	}
}

// TestStatefulSets: upstream's defaults (as kube-apiserver v1.37.2
// answered the same create), a status sent on create dropped, the status
// subresource keeping the spec, the scale subresource, the generation
// bump, upstream's validation messages, and the table columns.
func TestStatefulSets(t *testing.T) {
	ts := startServer(t)
	ctx := context.Background()
	c := ts.client.AppsV1().StatefulSets("default")
	in := testStatefulSet("mysql", 3)
	in.Status.Replicas = 7
	s, err := c.Create(ctx, in, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ru := s.Spec.UpdateStrategy.RollingUpdate
	if s.Generation != 1 || s.Status.Replicas != 0 || s.Spec.PodManagementPolicy != appsv1.OrderedReadyPodManagement ||
		s.Spec.UpdateStrategy.Type != appsv1.RollingUpdateStatefulSetStrategyType || ru == nil || *ru.Partition != 0 ||
		ru.MaxUnavailable.String() != "1" || *s.Spec.RevisionHistoryLimit != 10 ||
		s.Spec.PersistentVolumeClaimRetentionPolicy.WhenDeleted != appsv1.RetainPersistentVolumeClaimRetentionPolicyType ||
		s.Spec.VolumeClaimTemplates[0].Status.Phase != corev1.ClaimPending || *s.Spec.VolumeClaimTemplates[0].Spec.VolumeMode != corev1.PersistentVolumeFilesystem {
		t.Errorf("created: generation %d status %+v spec %+v", s.Generation, s.Status, s.Spec)
	}

	s.Status = appsv1.StatefulSetStatus{Replicas: 3, ReadyReplicas: 2, ObservedGeneration: 1}
	s.Spec.Replicas = ptr.To[int32](9)
	st, err := c.UpdateStatus(ctx, s, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Status.ReadyReplicas != 2 || *st.Spec.Replicas != 3 || st.Generation != 1 {
		t.Errorf("after the status update: ready %d replicas %d generation %d, want 2, 3 (spec kept), 1", st.Status.ReadyReplicas, *st.Spec.Replicas, st.Generation)
	}

	sc, err := c.GetScale(ctx, "mysql", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sc.Spec.Replicas != 3 || sc.Status.Replicas != 3 || sc.Status.Selector != "app=mysql" {
		t.Errorf("scale: %+v, want 3/3 app=mysql", sc)
	}
	if _, err := c.Patch(ctx, "mysql", types.MergePatchType, []byte(`{"spec":{"replicas":1}}`), metav1.PatchOptions{}, "scale"); err != nil {
		t.Fatal(err)
	}
	got, err := c.Get(ctx, "mysql", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if *got.Spec.Replicas != 1 || got.Generation != 2 || got.Status.ReadyReplicas != 2 {
		t.Errorf("after scaling to 1: replicas %d generation %d ready %d, want 1, 2, 2", *got.Spec.Replicas, got.Generation, got.Status.ReadyReplicas)
	}
	got.Labels = map[string]string{"tier": "db"}
	if got, err = c.Update(ctx, got, metav1.UpdateOptions{}); err != nil || got.Generation != 2 {
		t.Errorf("a label change: %v, generation %d, want 2 (only the spec counts)", err, got.Generation)
	}

	cols, rows := mustTable(t, ts, "/apis/apps/v1/namespaces/default/statefulsets")
	if want := []string{"Name", "Ready", "Age", "Containers", "Images"}; !slices.Equal(cols, want) {
		t.Errorf("columns %q, want %q", cols, want)
	}
	if len(rows) != 1 || rows[0][0] != "mysql" || rows[0][1] != "2/1" || rows[0][3] != "mysql" || rows[0][4] != "mysql:8" {
		t.Errorf("rows %q, want mysql 2/1 ... mysql mysql:8", rows)
	}
}

// TestStatefulSetValidation: kube-apiserver v1.37.2's answers to bad
// stateful sets (taken from the real server), on create and update.
func TestStatefulSetValidation(t *testing.T) {
	ts := startServer(t)
	ctx := context.Background()
	c := ts.client.AppsV1().StatefulSets("default")
	bad := testStatefulSet("bad", 1)
	bad.Spec.Selector.MatchLabels = map[string]string{"app": "other"}
	_, err := c.Create(ctx, bad, metav1.CreateOptions{})
	wantInvalid(t, "selector mismatch", err, "StatefulSet.apps \"bad\" is invalid: spec.template.metadata.labels: Invalid value: {\"app\":\"bad\"}: `selector` does not match template `labels`")

	noService := testStatefulSet("nosvc", 1)
	noService.Spec.ServiceName = "Bad_Name"
	_, err = c.Create(ctx, noService, metav1.CreateOptions{})
	wantInvalid(t, "bad serviceName", err, `StatefulSet.apps "nosvc" is invalid: spec.serviceName: Invalid value: "Bad_Name": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`)

	s, err := c.Create(ctx, testStatefulSet("web", 1), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.Spec.VolumeClaimTemplates[0].Name = "other"
	_, err = c.Update(ctx, s, metav1.UpdateOptions{})
	if !apierrors.IsInvalid(err) || !strings.HasPrefix(err.Error(), `StatefulSet.apps "web" is invalid: spec.volumeClaimTemplates: Invalid value: [{"name":"other","Spec":`) ||
		!strings.HasSuffix(err.Error(), "}]: field is immutable") {
		t.Errorf("changed volumeClaimTemplates: %v, want upstream's field is immutable", err)
	}
	s, err = c.Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.Spec.ServiceName = "other"
	_, err = c.Update(ctx, s, metav1.UpdateOptions{})
	wantInvalid(t, "changed serviceName", err, `StatefulSet.apps "web" is invalid: spec.serviceName: Invalid value: "other": field is immutable`)
}
