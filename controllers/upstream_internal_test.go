package controllers

import (
	"bytes"
	"io"
	"net/http"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
)

// roundTripFunc is an http.RoundTripper made of a func.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestUpstreamWritesReportsCreates: a create that made a pod with a
// generated name is reported with the pod's name, uid and controller,
// whether the answer came as JSON or as protobuf, and the client still
// reads the whole body; another write is reported by its path.
func TestUpstreamWritesReportsCreates(t *testing.T) {
	yes := true
	pod := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "pi-x7k2p", UID: "u-1",
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: "pi", UID: "u-job", Controller: &yes}}}}
	for _, mediaType := range []string{runtime.ContentTypeJSON, runtime.ContentTypeProtobuf} {
		t.Run(mediaType, func(t *testing.T) {
			info, _ := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), mediaType)
			var body bytes.Buffer
			if err := scheme.Codecs.EncoderForVersion(info.Serializer, corev1.SchemeGroupVersion).Encode(pod, &body); err != nil {
				t.Fatal(err)
			}
			var got []Action
			cfg := &Config{Observer: func(a Action) { got = append(got, a) }}
			rt := upstreamWrites{name: JobControllerName, cfg: cfg, next: roundTripFunc(func(r *http.Request) (*http.Response, error) {
				code := http.StatusCreated
				if r.Method != http.MethodPost {
					code = http.StatusOK
				}
				return &http.Response{StatusCode: code, Header: http.Header{"Content-Type": {mediaType}}, Body: io.NopCloser(bytes.NewReader(body.Bytes()))}, nil
			})}
			req, _ := http.NewRequest(http.MethodPost, "https://x/api/v1/namespaces/default/pods", nil)
			resp, err := rt.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			if rest, _ := io.ReadAll(resp.Body); !bytes.Equal(rest, body.Bytes()) {
				t.Errorf("the client read %d bytes, want the %d of the answer", len(rest), body.Len())
			}
			req, _ = http.NewRequest(http.MethodPut, "https://x/apis/batch/v1/namespaces/default/jobs/pi/status", nil)
			if _, err := rt.RoundTrip(req); err != nil {
				t.Fatal(err)
			}
			if len(got) != 2 {
				t.Fatalf("%d actions, want 2", len(got))
			}
			c := got[0]
			if c.Created == nil || c.Created.Name != "pi-x7k2p" || c.Created.UID != "u-1" || c.Key != "default/pi-x7k2p" ||
				c.Owner == nil || c.Owner.Name != "pi" || c.Object.Kind != "Pod" || c.Controller != JobControllerName {
				t.Errorf("create reported as %+v (created %+v, owner %+v)", c, c.Created, c.Owner)
			}
			if u := got[1]; u.Created != nil || u.Key != "default/pi" || u.Calls[0].Subresource != "status" || u.Calls[0].Code != 200 {
				t.Errorf("status write reported as %+v", u)
			}
		})
	}
}
