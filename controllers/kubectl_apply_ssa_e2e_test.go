package controllers_test

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/yaml"
)

// ssaDeployment is the manifest the server-side apply test applies, with
// its replicas.
func ssaDeployment(replicas string) string {
	return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
spec:
  replicas: ` + replicas + `
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
`
}

// TestKubectlServerSideApply: `kubectl apply --server-side` creates a
// Deployment (manager kubectl, operation Apply); a second apply by
// another --field-manager that changes the replicas is refused with
// upstream's conflict text naming kubectl and .spec.replicas; with
// --force-conflicts it takes the field; `get -o yaml
// --show-managed-fields` then shows both managers' Apply entries, the
// replicas only in the second's, and without the flag kubectl hides them.
// Skipped when kubectl is not on PATH.
func TestKubectlServerSideApply(t *testing.T) {
	c, _ := startCluster(t)
	k := newKubectl(t, c)
	applied := k.run(t, ssaDeployment("2"), "apply", "--server-side", "-f", "-")
	if applied.err != nil || applied.stdout != "deployment.apps/web serverside-applied\n" {
		t.Fatalf("kubectl apply --server-side: %v\nstdout:\n%s\nstderr:\n%s", applied.err, applied.stdout, applied.stderr)
	}
	conflict := k.run(t, ssaDeployment("3"), "apply", "--server-side", "--field-manager=other", "-f", "-")
	const want = `Apply failed with 1 conflict: conflict with "kubectl": .spec.replicas`
	if conflict.err == nil || !strings.Contains(conflict.stderr, want) || !strings.Contains(conflict.stderr, "--force-conflicts") {
		t.Fatalf("second manager's apply: %v\nstderr:\n%s\nwant it to fail with %q", conflict.err, conflict.stderr, want)
	}
	forced := k.run(t, ssaDeployment("3"), "apply", "--server-side", "--force-conflicts", "--field-manager=other", "-f", "-")
	if forced.err != nil || forced.stdout != "deployment.apps/web serverside-applied\n" {
		t.Fatalf("apply --force-conflicts: %v\nstdout:\n%s\nstderr:\n%s", forced.err, forced.stdout, forced.stderr)
	}
	var d appsv1.Deployment
	if err := yaml.Unmarshal([]byte(k.must(t, "get", "deployment", "web", "-o", "yaml", "--show-managed-fields")), &d); err != nil {
		t.Fatal(err)
	}
	if d.Spec.Replicas == nil || *d.Spec.Replicas != 3 {
		t.Errorf("replicas %v after the forced apply, want 3", d.Spec.Replicas)
	}
	replicas := fieldpath.MakePathOrDie("spec", "replicas")
	for manager, wantReplicas := range map[string]bool{"kubectl": false, "other": true} {
		e := managedEntry(t, d.ManagedFields, manager)
		if e.Operation != metav1.ManagedFieldsOperationApply || e.APIVersion != "apps/v1" || e.Subresource != "" || e.Time == nil {
			t.Errorf("%s's entry: operation %q, apiVersion %q, subresource %q, time %v; want Apply, apps/v1, none, a time", manager, e.Operation, e.APIVersion, e.Subresource, e.Time)
		}
		set := &fieldpath.Set{}
		if err := set.FromJSON(strings.NewReader(string(e.FieldsV1.Raw))); err != nil {
			t.Fatal(err)
		}
		if got := set.Has(replicas); got != wantReplicas {
			t.Errorf("%s owns .spec.replicas: %v, want %v (fields %s)", manager, got, wantReplicas, e.FieldsV1.Raw)
		}
		if !set.Has(fieldpath.MakePathOrDie("spec", "template", "spec", "containers", fieldpath.KeyByFields("name", "nginx"), "image")) {
			t.Errorf("%s does not own the nginx container's image: %s", manager, e.FieldsV1.Raw)
		}
	}
	if plain := k.must(t, "get", "deployment", "web", "-o", "yaml"); strings.Contains(plain, "managedFields") {
		t.Errorf("kubectl get -o yaml shows managedFields without --show-managed-fields:\n%s", plain)
	}
}

// managedEntry is manager's entry among entries; the test fails without
// one.
func managedEntry(t *testing.T, entries []metav1.ManagedFieldsEntry, manager string) metav1.ManagedFieldsEntry {
	t.Helper()
	for _, e := range entries {
		if e.Manager == manager && e.Operation == metav1.ManagedFieldsOperationApply {
			return e
		}
	}
	t.Fatalf("no Apply entry of %s among %d managedFields entries", manager, len(entries))
	return metav1.ManagedFieldsEntry{}
}
