package controllers_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// shopManifest is a tutorial's file: a Deployment and the Service in
// front of it.
const shopManifest = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: shop
  labels:
    app: shop
spec:
  replicas: 2
  selector:
    matchLabels:
      app: shop
  template:
    metadata:
      labels:
        app: shop
    spec:
      containers:
      - name: web
        image: nginx:1.27
        ports:
        - containerPort: 80
        resources:
          requests:
            cpu: 100m
            memory: 64Mi
---
apiVersion: v1
kind: Service
metadata:
  name: shop
spec:
  selector:
    app: shop
  ports:
  - port: 80
    targetPort: 80
    protocol: TCP
`

// TestKubectlApplyFile applies a Deployment and a Service from one file
// with kubectl's default validation (no --validate=false): kubectl reads
// the apps/v1 and core/v1 schemas from /openapi/v3 (never v2), asks the
// server for strict field validation, and a misspelt or mistyped field
// gets upstream's message from the API server.
func TestKubectlApplyFile(t *testing.T) {
	c, admin := startCluster(t)
	k := newKubectl(t, c)
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	file := write("shop.yaml", shopManifest)

	r := k.run(t, "", "apply", "-f", file, "-v=6")
	if r.err != nil || r.stdout != "deployment.apps/shop created\nservice/shop created\n" {
		t.Fatalf("kubectl apply: %v\nstdout:\n%s\nstderr:\n%s\nwant both created", r.err, r.stdout, r.stderr)
	}
	for _, want := range []string{"/openapi/v3/apis/apps/v1?hash=", "/openapi/v3/api/v1?hash=",
		"/apis/apps/v1/namespaces/default/deployments?fieldManager=kubectl-client-side-apply&fieldValidation=Strict 201 Created",
		"/api/v1/namespaces/default/services?fieldManager=kubectl-client-side-apply&fieldValidation=Strict 201 Created"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("kubectl apply -v=6 never logged %q:\n%s", want, r.stderr)
		}
	}
	if strings.Contains(r.stderr, "/openapi/v2") || strings.Contains(r.stderr, "Warning") {
		t.Errorf("kubectl apply fell back to /openapi/v2 or warned:\n%s", r.stderr)
	}
	if out := k.must(t, "rollout", "status", "deployment/shop", "--timeout="+waitTimeout.String()); !strings.HasSuffix(out, "deployment \"shop\" successfully rolled out\n") {
		t.Errorf("rollout status printed %q", out)
	}
	svc, err := admin.CoreV1().Services("default").Get(context.Background(), "shop", metav1.GetOptions{})
	if err != nil || svc.Spec.ClusterIP == "" || svc.Spec.Ports[0].TargetPort.IntValue() != 80 || svc.Spec.Selector["app"] != "shop" {
		t.Fatalf("stored service: %+v %v, want a ClusterIP, targetPort 80, selector app=shop", svc.Spec, err)
	}
	k.mustPrint(t, "deployment.apps/shop unchanged\nservice/shop unchanged\n", "apply", "-f", file)

	checkApplyRejected(t, k, write)
}

// checkApplyRejected applies files with one mistake each and checks the
// API server's message as kubectl prints it: a create answers with the
// decoder's "cannot be handled as" error, a patch of an applied object
// with the strict decoding error alone, as kube-apiserver's handlers do.
func checkApplyRejected(t *testing.T, k *kubectl, write func(name, content string) string) {
	newTypo := strings.ReplaceAll(strings.Replace(shopManifest, "- containerPort: 80", "- containerPortt: 80", 1), "shop", "shop2")
	for _, tt := range []struct {
		name, file, want string
	}{
		{"unknown field, new Deployment", newTypo,
			`error when creating "%s": Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.template.spec.containers[0].ports[0].containerPortt"`},
		// kubectl computes the patch itself, from the schema's merge keys:
		// the misspelt field must not be one (containerPort is).
		{"unknown field, applied Deployment", strings.Replace(shopManifest, "image: nginx:1.27", "image: nginx:1.27\n        imagePullPolicyy: Always", 1),
			`error when patching "%s": strict decoding error: unknown field "spec.template.spec.containers[0].imagePullPolicyy"`},
		{"wrong type, new Deployment", strings.Replace(strings.ReplaceAll(shopManifest, "shop", "shop3"), "replicas: 2", `replicas: "two"`, 1),
			`error when creating "%s": Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32`},
		{"unknown field, new Service", strings.Replace(strings.ReplaceAll(shopManifest, "shop", "shop4"), "targetPort: 80", "targetport: 80", 1),
			`error when creating "%s": Service in version "v1" cannot be handled as a Service: strict decoding error: unknown field "spec.ports[0].targetport"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			file := write(strings.NewReplacer(" ", "-", ",", "").Replace(tt.name)+".yaml", tt.file)
			stderr := k.mustFail(t, "apply", "-f", file)
			want := strings.Replace(tt.want, "%s", file, 1)
			if !strings.Contains(stderr, "Error from server (BadRequest): ") || !strings.HasSuffix(stderr, want+"\n") {
				t.Errorf("kubectl apply printed\n%s\nwant it to end in\n%s", stderr, want)
			}
		})
	}
}
