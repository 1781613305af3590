package apiserver

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubesim/kubesim/apiserver/admission"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// activeNamespaces says every namespace exists and is active.
type activeNamespaces struct{}

func (activeNamespaces) Phase(context.Context, string) (corev1.NamespacePhase, error) {
	return corev1.NamespaceActive, nil
}

func (n activeNamespaces) LivePhase(ctx context.Context, name string) (corev1.NamespacePhase, error) {
	return n.Phase(ctx, name)
}

// everyAccount says every service account exists.
type everyAccount struct{}

func (everyAccount) CachedServiceAccount(_ context.Context, namespace, name string) (*corev1.ServiceAccount, error) {
	return &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}, nil
}

func (a everyAccount) LiveServiceAccount(ctx context.Context, namespace, name string) (*corev1.ServiceAccount, error) {
	return a.CachedServiceAccount(ctx, namespace, name)
}

// noClasses knows no PriorityClass.
type noClasses struct{}

func (noClasses) GetPriorityClass(_ context.Context, name string) (*schedulingv1.PriorityClass, error) {
	return nil, apierrors.NewNotFound(registry.PriorityClasses.GroupResource(), name)
}

func (noClasses) ListPriorityClasses(context.Context) ([]*schedulingv1.PriorityClass, error) {
	return nil, nil
}

// clientError reports whether err is an API error a client caused (4xx),
// the only kind bad input may produce.
func clientError(err error) bool {
	var st apierrors.APIStatus
	if !errors.As(err, &st) {
		return false
	}
	code := st.Status().Code
	return code >= 400 && code < 500
}

var fuzzContentTypes = []string{mediaJSON, mediaYAML, mediaProtobuf, "", "text/plain"}

// FuzzDecodeAndAdmitPod feeds arbitrary request bodies through what a pod
// create does before storage: decoding (JSON, YAML or protobuf), defaults,
// the admission plugins and validation. Nothing may panic, every rejection
// must be a 4xx API error, and what passes must encode for storage.
func FuzzDecodeAndAdmitPod(f *testing.F) {
	for _, seed := range []string{
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"nginx"}]}}`,
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"nginx","ports":[{"containerPort":80}],"resources":{"limits":{"cpu":"1","memory":"1Gi"}}}],"tolerations":[{"key":"k","operator":"Exists","effect":"NoExecute","tolerationSeconds":5}]}}`,
		"apiVersion: v1\nkind: Pod\nmetadata:\n  name: y\nspec:\n  containers:\n  - name: c\n    image: busybox\n",
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"Bad_Name"},"spec":{}}`,
		`{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"}}`,
		`{"apiVersion":"v1","kind":"Pod","spec":{"priorityClassName":"gold","priority":7,"containers":[{"name":"c","image":"i","resources":{"requests":{"cpu":"-1"}}}]}}`,
		`{"kind":"Pod"`,
		"k8s\x00\x0a\x0e\x0a\x02v1\x12\x03Pod",
	} {
		for i := range fuzzContentTypes {
			f.Add([]byte(seed), uint8(i), true)
		}
	}
	chain, _ := newAdmissionChain(activeNamespaces{}, everyAccount{}, nil, noClasses{}, nil)
	gvk := corev1.SchemeGroupVersion.WithKind("Pod")
	f.Fuzz(func(t *testing.T, body []byte, ct uint8, strict bool) {
		r := httptest.NewRequest(http.MethodPost, "/api/v1/namespaces/default/pods", bytes.NewReader(body))
		r.Header.Set("Content-Type", fuzzContentTypes[int(ct)%len(fuzzContentTypes)])
		validation := metav1.FieldValidationWarn
		if strict {
			validation = metav1.FieldValidationStrict
		}
		obj, _, err := decodeBody(r, body, gvk, &corev1.Pod{}, validation)
		if err != nil {
			if !clientError(err) {
				t.Fatalf("decode error is not a 4xx API error: %v", err)
			}
			return
		}
		pod, ok := obj.(*corev1.Pod)
		if !ok {
			t.Fatalf("decoded %T, want *v1.Pod", obj)
		}
		registry.DefaultPod(pod)
		attrs := &admission.Attributes{
			Operation: admission.Create, Kind: gvk, Resource: corev1.SchemeGroupVersion.WithResource("pods"),
			Namespace: "default", Name: pod.Name, Object: pod,
			User: admission.UserInfo{Name: "admin", Groups: []string{"system:masters"}},
		}
		if _, err := chain.Admit(context.Background(), attrs); err != nil {
			if !clientError(err) {
				t.Fatalf("mutating admission error is not a 4xx API error: %v", err)
			}
			return
		}
		_ = registry.ValidatePod(pod)
		if _, err := chain.Validate(context.Background(), attrs); err != nil && !clientError(err) {
			t.Fatalf("validating admission error is not a 4xx API error: %v", err)
		}
		var buf bytes.Buffer
		if err := registry.Codec.Encode(pod, &buf); err != nil {
			t.Fatalf("a decoded pod does not encode: %v", err)
		}
	})
}

// FuzzSelectors feeds arbitrary label and field selectors through the
// query-string decoding of a list, the field checks of the pods resource
// and matching. Nothing may panic; errors must be 4xx API errors.
func FuzzSelectors(f *testing.F) {
	for _, s := range [][2]string{
		{"app=web", "spec.nodeName=node-1"},
		{"app in (web,db),tier!=cache", "status.phase!=Running,metadata.name==p"},
		{"!beta,x notin (a)", "spec.image=x"},
		{"a==b==c", "spec.nodeName="},
		{"environment in (production, qa", "=,=="},
		{"x>1", `metadata.name=a\,b`},
	} {
		f.Add(s[0], s[1])
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default", Labels: map[string]string{"app": "web"}}}
	pod.Spec.NodeName = "node-1"
	f.Fuzz(func(t *testing.T, labelSel, fieldSel string) {
		q := url.Values{"labelSelector": {labelSel}, "fieldSelector": {fieldSel}}
		r := httptest.NewRequest(http.MethodGet, "/api/v1/pods?"+q.Encode(), nil)
		opts, err := listOptions(r)
		if err != nil {
			if !clientError(err) {
				t.Fatalf("list options error is not a 4xx API error: %v", err)
			}
			return
		}
		if opts.LabelSelector != nil {
			_ = opts.LabelSelector.Matches(labels.Set(pod.Labels))
			// A parsed selector prints as a selector that parses again.
			if _, err := labels.Parse(opts.LabelSelector.String()); err != nil {
				t.Fatalf("selector %q prints as %q, which does not parse: %v", labelSel, opts.LabelSelector.String(), err)
			}
		}
		matches, err := registry.PodsMatch(pod, opts)
		if err != nil {
			if !clientError(err) {
				t.Fatalf("field check error is not a 4xx API error: %v", err)
			}
			return
		}
		_ = matches
	})
}
