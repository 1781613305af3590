package apiserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

const (
	sarPath  = "/apis/authorization.k8s.io/v1/subjectaccessreviews"
	lsarPath = "/apis/authorization.k8s.io/v1/namespaces/default/localsubjectaccessreviews"
)

// reviewAnswer is what a test reads of a review's answer: the code, the
// status of an access review, and the message of an error.
type reviewAnswer struct {
	code    int
	status  authorizationv1.SubjectAccessReviewStatus
	message string
}

func postAccessReview(t *testing.T, ts *testServer, path, body string) reviewAnswer {
	t.Helper()
	code, out := ts.do(t, http.MethodPost, path, "application/json", body)
	var doc struct {
		Status  json.RawMessage `json:"status"`
		Message string          `json:"message"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("answer %s: %v", out, err)
	}
	a := reviewAnswer{code: code, message: doc.Message}
	if code == http.StatusCreated {
		if err := json.Unmarshal(doc.Status, &a.status); err != nil {
			t.Fatalf("status %s: %v", doc.Status, err)
		}
	}
	return a
}

// TestSubjectAccessReview checks upstream's answers (as kube-apiserver
// v1.37.2 gave them) to subjectaccessreviews and localsubjectaccessreviews:
// the decision and reason of the authorizers for the subject of the spec,
// and upstream's validation errors, byte for byte.
func TestSubjectAccessReview(t *testing.T) {
	ts := startServer(t)
	sar := func(spec string) string {
		return `{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":` + spec + `}`
	}
	lsar := func(meta, spec string) string {
		return `{"apiVersion":"authorization.k8s.io/v1","kind":"LocalSubjectAccessReview","metadata":` + meta + `,"spec":` + spec + `}`
	}
	tests := []struct {
		name, path, body string
		want             reviewAnswer
	}{
		{name: "allowed by RBAC", path: sarPath, body: sar(`{"user":"student","resourceAttributes":{"verb":"list","resource":"pods","namespace":"default"}}`),
			want: reviewAnswer{code: 201, status: authorizationv1.SubjectAccessReviewStatus{Allowed: true,
				Reason: `RBAC: allowed by ClusterRoleBinding "kubesim:student-view" of ClusterRole "view" to User "student"`}}},
		{name: "nobody's opinion", path: sarPath, body: sar(`{"user":"bob","resourceAttributes":{"verb":"list","resource":"pods"}}`),
			want: reviewAnswer{code: 201}},
		{name: "a selector that does not parse", path: sarPath,
			body: sar(`{"user":"system:kube-scheduler","uid":"u1","extra":{"a":["b"]},"resourceAttributes":{"verb":"get","resource":"pods","namespace":"q","labelSelector":{"rawSelector":"a in (b"}}}`),
			want: reviewAnswer{code: 201, status: authorizationv1.SubjectAccessReviewStatus{Allowed: true,
				Reason:          `RBAC: allowed by ClusterRoleBinding "system:kube-scheduler" of ClusterRole "system:kube-scheduler" to User "system:kube-scheduler"`,
				EvaluationError: "spec.resourceAttributes.labelSelector ignored due to parse error"}}},
		{name: "a kubelet lists its own pods", path: sarPath,
			body: sar(`{"user":"system:node:node-a","groups":["system:nodes"],"resourceAttributes":{"verb":"list","resource":"pods","fieldSelector":{"requirements":[{"key":"spec.nodeName","operator":"In","values":["node-a"]}]}}}`),
			want: reviewAnswer{code: 201, status: authorizationv1.SubjectAccessReviewStatus{Allowed: true}}},
		{name: "no subject, no attributes, metadata", path: sarPath, body: `{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","metadata":{"name":"x"},"spec":{}}`,
			want: reviewAnswer{code: 422, message: `.authorization.k8s.io "" is invalid: [spec: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified, ` +
				`spec.user: Invalid value: "": at least one of user or group must be specified, metadata: Invalid value: {"name":"x"}: must be empty]`}},
		{name: "both attributes, an empty field selector", path: sarPath,
			body: sar(`{"groups":["system:masters"],"nonResourceAttributes":{"verb":"get","path":"/x"},"resourceAttributes":{"verb":"get","resource":"pods","fieldSelector":{}}}`),
			want: reviewAnswer{code: 422, message: `.authorization.k8s.io "" is invalid: [spec: Invalid value: {"Path":"/x","Verb":"get"}: exactly one of nonResourceAttributes or resourceAttributes must be specified, ` +
				`spec.resourceAttributes.fieldSelector.requirements: Required value: when spec.resourceAttributes.fieldSelector is specified, requirements or rawSelector is required]`}},
		{name: "local: allowed", path: lsarPath, body: lsar(`{}`, `{"user":"student","resourceAttributes":{"verb":"get","resource":"pods","namespace":"default"}}`),
			want: reviewAnswer{code: 201, status: authorizationv1.SubjectAccessReviewStatus{Allowed: true,
				Reason: `RBAC: allowed by ClusterRoleBinding "kubesim:student-view" of ClusterRole "view" to User "student"`}}},
		{name: "local: another namespace in spec", path: lsarPath, body: lsar(`{}`, `{"user":"bob","resourceAttributes":{"verb":"list","resource":"pods","namespace":"other"}}`),
			want: reviewAnswer{code: 422, message: `.authorization.k8s.io "" is invalid: spec.resourceAttributes.namespace: Invalid value: "other": must match metadata.namespace`}},
		{name: "local: another namespace in metadata", path: lsarPath, body: lsar(`{"namespace":"x"}`, `{"user":"bob","resourceAttributes":{"verb":"list","resource":"pods","namespace":"x"}}`),
			want: reviewAnswer{code: 400, message: "the namespace of the provided object does not match the namespace sent on the request"}},
		{name: "local: a path", path: lsarPath, body: lsar(`{}`, `{"user":"x","nonResourceAttributes":{"verb":"get","path":"/x"}}`),
			want: reviewAnswer{code: 422, message: `.authorization.k8s.io "" is invalid: spec.nonResourceAttributes: Invalid value: {"Path":"/x","Verb":"get"}: disallowed on this kind of request`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := postAccessReview(t, ts, tt.path, tt.body); got != tt.want {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// TestSubjectReviewConformance does what upstream's conformance test
// "SubjectReview should support SubjectReview API operations" does: the
// decision of a SubjectAccessReview and of a LocalSubjectAccessReview for
// a service account matches what the service account, impersonated, is
// then allowed.
func TestSubjectReviewConformance(t *testing.T) {
	ts := startServer(t)
	ctx := context.Background()
	sa, err := ts.client.CoreV1().ServiceAccounts("default").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "e2e"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	username, groups := "system:serviceaccount:default:e2e", []string{"system:authenticated", "system:serviceaccounts", "system:serviceaccounts:default"}
	attrs := &authorizationv1.ResourceAttributes{Verb: "list", Resource: "configmaps", Namespace: "default", Version: "v1"}
	// localUser is the local review's user: upstream's test names the
	// service account only ("e2e"), which no binding matches; it runs
	// where the service account may not list configmaps.
	check := func(localUser string, wantAllowed bool) {
		t.Helper()
		got, err := ts.client.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			ResourceAttributes: attrs, User: username, Groups: groups, UID: string(sa.UID)}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		local, err := ts.client.AuthorizationV1().LocalSubjectAccessReviews("default").Create(ctx, &authorizationv1.LocalSubjectAccessReview{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default"},
			Spec:       authorizationv1.SubjectAccessReviewSpec{ResourceAttributes: attrs, User: localUser, Groups: groups, UID: string(sa.UID)}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cfg := ts.restConfig()
		cfg.Impersonate = rest.ImpersonationConfig{UserName: username, UID: string(sa.UID), Groups: groups}
		_, listErr := kubernetes.NewForConfigOrDie(cfg).CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{})
		if listErr != nil && !apierrors.IsForbidden(listErr) {
			t.Fatal(listErr)
		}
		if actual := listErr == nil; got.Status.Allowed != actual || local.Status.Allowed != actual || actual != wantAllowed {
			t.Errorf("review allowed %t, local review allowed %t, list allowed %t (want %t)", got.Status.Allowed, local.Status.Allowed, actual, wantAllowed)
		}
	}
	check("e2e", false)
	if _, err := ts.client.RbacV1().RoleBindings("default").Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "e2e-view"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "e2e", Namespace: "default"}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, waitTimeout, "the binding to reach the authorizer", func() bool {
		r, err := ts.client.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			ResourceAttributes: attrs, User: username}}, metav1.CreateOptions{})
		return err == nil && r.Status.Allowed
	})
	check(username, true)
}

// TestReviewDiscovery checks that discovery, legacy and aggregated, lists
// the reviews with their scope, as upstream: localsubjectaccessreviews is
// namespaced, the others are cluster-scoped; all are create only.
func TestReviewDiscovery(t *testing.T) {
	ts := startServer(t)
	_, out := ts.do(t, http.MethodGet, "/apis/authorization.k8s.io/v1", "", "")
	var list metav1.APIResourceList
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatal(err)
	}
	namespaced := map[string]bool{}
	for _, r := range list.APIResources {
		namespaced[r.Name] = r.Namespaced
	}
	if !namespaced["localsubjectaccessreviews"] || namespaced["subjectaccessreviews"] {
		t.Errorf("legacy discovery: namespaced %v, want localsubjectaccessreviews only", namespaced)
	}
	_, out = ts.do(t, http.MethodGet, "/apis", "", "", "Accept", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")
	var agg struct {
		Items []struct {
			Metadata struct{ Name string }
			Versions []struct {
				Resources []struct {
					Resource, Scope string
					Verbs           []string
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &agg); err != nil {
		t.Fatal(err)
	}
	scopes := map[string]string{}
	for _, g := range agg.Items {
		for _, v := range g.Versions {
			for _, r := range v.Resources {
				if g.Metadata.Name == "authorization.k8s.io" || g.Metadata.Name == "authentication.k8s.io" {
					scopes[r.Resource] = r.Scope + " " + r.Verbs[0]
				}
			}
		}
	}
	for res, want := range map[string]string{"localsubjectaccessreviews": "Namespaced create", "subjectaccessreviews": "Cluster create", "tokenreviews": "Cluster create"} {
		if scopes[res] != want {
			t.Errorf("aggregated discovery: %s is %q, want %q", res, scopes[res], want)
		}
	}
}
