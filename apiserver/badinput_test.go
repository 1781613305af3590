package apiserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const podJSON = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"nginx"}]}}`

// Every bad request gets a metav1.Status with kube-apiserver's code,
// reason and message, and writes nothing.
func TestBadInput(t *testing.T) {
	ts := startServer(t)
	huge := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"big","annotations":{"a":"` + strings.Repeat("x", 3*1024*1024) + `"}}}`
	tests := []struct {
		name        string
		method      string
		path        string
		contentType string
		body        string
		code        int
		reason      metav1.StatusReason
		message     string
	}{
		{"body over 3 MiB", "POST", "/api/v1/namespaces/default/pods", "application/json", huge,
			413, metav1.StatusReasonRequestEntityTooLarge, "Request entity too large: limit is 3145728"},
		{"malformed JSON", "POST", "/api/v1/namespaces/default/pods", "application/json", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":`,
			400, metav1.StatusReasonBadRequest, "the object provided is unrecognized (must be of type Pod)"},
		// The texts of kind and version mismatches are kube-apiserver
		// v1.37.2's: a kind of another internal type fails its
		// conversion; one of the same internal type in another version
		// is read, then refused for its version.
		{"wrong kind", "POST", "/api/v1/namespaces/default/pods", "application/json", `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"}}`,
			400, metav1.StatusReasonBadRequest, `Node in version "v1" cannot be handled as a Pod: converting (v1.Node) to (core.Pod): unknown conversion`},
		{"wrong group", "POST", "/api/v1/namespaces/default/pods", "application/json", `{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"l"}}`,
			400, metav1.StatusReasonBadRequest, `Lease in version "v1" cannot be handled as a Pod: converting (v1.Lease) to (core.Pod): unknown conversion`},
		{"secret as a configmap", "POST", "/api/v1/namespaces/default/configmaps", "application/json", `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"x"}}`,
			400, metav1.StatusReasonBadRequest, `Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown conversion`},
		{"role as a clusterrole", "POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles", "application/json", `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"x"}}`,
			400, metav1.StatusReasonBadRequest, `Role in version "v1" cannot be handled as a ClusterRole: converting (v1.Role) to (rbac.ClusterRole): unknown conversion`},
		{"old replicaset as a deployment", "POST", "/apis/apps/v1/namespaces/default/deployments", "application/json", `{"apiVersion":"extensions/v1beta1","kind":"ReplicaSet","metadata":{"name":"x"}}`,
			400, metav1.StatusReasonBadRequest, `ReplicaSet in version "v1beta1" cannot be handled as a Deployment: converting (v1beta1.ReplicaSet) to (apps.Deployment): unknown conversion`},
		{"old deployment", "POST", "/apis/apps/v1/namespaces/default/deployments", "application/json", `{"apiVersion":"extensions/v1beta1","kind":"Deployment","metadata":{"name":"x"}}`,
			400, metav1.StatusReasonBadRequest, "the API version in the data (extensions/v1beta1) does not match the expected API version (apps/v1)"},
		{"beta deployment", "POST", "/apis/apps/v1/namespaces/default/deployments", "application/json", `{"apiVersion":"apps/v1beta2","kind":"Deployment","metadata":{"name":"x"}}`,
			400, metav1.StatusReasonBadRequest, "the API version in the data (apps/v1beta2) does not match the expected API version (apps/v1)"},
		{"events.k8s.io event", "POST", "/api/v1/namespaces/default/events", "application/json", `{"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"x"}}`,
			400, metav1.StatusReasonBadRequest, "the API version in the data (events.k8s.io/v1) does not match the expected API version (v1)"},
		{"secret as a CRD", "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "application/json", `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"x"}}`,
			400, metav1.StatusReasonBadRequest, `Secret in version "v1" cannot be handled as a CustomResourceDefinition: no kind "Secret" is registered for version "v1" in scheme "pkg/runtime/scheme.go:111"`},
		{"unknown kind", "POST", "/api/v1/namespaces/default/configmaps", "application/json", `{"apiVersion":"v1","kind":"Foo","metadata":{"name":"x"}}`,
			400, metav1.StatusReasonBadRequest, `Foo in version "v1" cannot be handled as a ConfigMap: no kind "Foo" is registered for version "v1" in scheme "pkg/runtime/scheme.go:111"`},
		{"unknown version", "POST", "/api/v1/namespaces/default/pods", "application/json", `{"apiVersion":"v2","kind":"Pod","metadata":{"name":"p"}}`,
			400, metav1.StatusReasonBadRequest, `Pod in version "v2" cannot be handled as a Pod: no kind "Pod" is registered for version "v2" in scheme "pkg/runtime/scheme.go:111"`},
		{"namespace mismatch", "POST", "/api/v1/namespaces/default/pods", "application/json", strings.Replace(podJSON, `"name":"p"`, `"name":"p","namespace":"kube-system"`, 1),
			400, metav1.StatusReasonBadRequest, "the namespace of the provided object does not match the namespace sent on the request"},
		{"missing namespace", "POST", "/api/v1/namespaces/nope/pods", "application/json", podJSON,
			404, metav1.StatusReasonNotFound, `namespaces "nope" not found`},
		{"name mismatch on PUT", "PUT", "/api/v1/namespaces/default/pods/other", "application/json", podJSON,
			400, metav1.StatusReasonBadRequest, "the name of the object (p) does not match the name on the URL (other)"},
		{"method not allowed", "PUT", "/api/v1/namespaces/default/pods", "application/json", podJSON,
			405, metav1.StatusReasonMethodNotAllowed, "the server does not allow this method on the requested resource"},
		{"unknown resource", "GET", "/api/v1/namespaces/default/widgets", "", "",
			404, metav1.StatusReasonNotFound, "the server could not find the requested resource"},
		{"unsupported body type", "POST", "/api/v1/namespaces/default/pods", "text/plain", podJSON,
			415, metav1.StatusReasonUnsupportedMediaType, "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf"},
		{"server-side apply without fieldManager", "PATCH", "/api/v1/namespaces/default/pods/p", "application/apply-patch+yaml", "apiVersion: v1\nkind: Pod\n",
			422, metav1.StatusReasonInvalid, `PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch`},
		{"invalid name", "POST", "/api/v1/namespaces/default/pods", "application/json", strings.Replace(podJSON, `"name":"p"`, `"name":"Not_Valid"`, 1),
			422, metav1.StatusReasonInvalid, `Pod "Not_Valid" is invalid: metadata.name: Invalid value: "Not_Valid": a lowercase RFC 1123 subdomain`},
		{"unknown field, strict", "POST", "/api/v1/namespaces/default/pods?fieldValidation=Strict", "application/json", strings.Replace(podJSON, `"spec":{`, `"spec":{"colour":"blue",`, 1),
			400, metav1.StatusReasonBadRequest, `Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec.colour"`},
		{"duplicate field, strict", "POST", "/api/v1/namespaces/default/pods?fieldValidation=Strict", "application/json", strings.Replace(podJSON, `"spec":{`, `"spec":{"restartPolicy":"Always","restartPolicy":"Never",`, 1),
			400, metav1.StatusReasonBadRequest, `strict decoding error: duplicate field "spec.restartPolicy"`},
		{"bad fieldValidation", "POST", "/api/v1/namespaces/default/pods?fieldValidation=Loud", "application/json", podJSON,
			422, metav1.StatusReasonInvalid, `fieldValidation: Unsupported value: "Loud"`},
		{"bad dryRun", "POST", "/api/v1/namespaces/default/pods?dryRun=Some", "application/json", podJSON,
			422, metav1.StatusReasonInvalid, `dryRun: Unsupported value: ["Some"]`},
		{"unsupported field selector", "GET", "/api/v1/pods?fieldSelector=spec.image%3Dnginx", "", "",
			400, metav1.StatusReasonBadRequest, "field label not supported: spec.image"},
		{"bad label selector", "GET", "/api/v1/pods?labelSelector=a%20in%20b", "", "",
			400, metav1.StatusReasonBadRequest, "unable to parse requirement"},
		{"resourceVersionMatch without resourceVersion", "GET", "/api/v1/pods?resourceVersionMatch=Exact", "", "",
			422, metav1.StatusReasonInvalid, "resourceVersionMatch is forbidden unless resourceVersion is provided"},
		{"sendInitialEvents without NotOlderThan", "GET", "/api/v1/pods?watch=true&sendInitialEvents=true", "", "",
			422, metav1.StatusReasonInvalid, "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"},
		{"bad JSON patch", "PATCH", "/api/v1/namespaces/default/pods/p", "application/json-patch+json", `{"op":"add"}`,
			400, metav1.StatusReasonBadRequest, "json: cannot unmarshal object into Go value of type"},
		{"JSON patch that does not apply", "PATCH", "/api/v1/namespaces/default/pods/p", "application/json-patch+json", `[{"op":"replace","path":"/spec/nothere/x","value":1}]`,
			422, metav1.StatusReasonInvalid, "the server rejected our request due to an error in our request"},
		{"patch changing the name", "PATCH", "/api/v1/namespaces/default/pods/p", "application/merge-patch+json", `{"metadata":{"name":"q"}}`,
			400, metav1.StatusReasonBadRequest, "the name of the object (q) does not match the name on the URL (p)"},
		{"patch of a missing object", "PATCH", "/api/v1/namespaces/default/pods/ghost", "application/merge-patch+json", `{"metadata":{"labels":{"a":"b"}}}`,
			404, metav1.StatusReasonNotFound, `pods "ghost" not found`},
		{"stale resourceVersion in a patch", "PATCH", "/api/v1/namespaces/default/pods/p", "application/merge-patch+json", `{"metadata":{"resourceVersion":"2","labels":{"a":"b"}}}`,
			409, metav1.StatusReasonConflict, `Operation cannot be fulfilled on pods "p": the object has been modified`},
		// kube-apiserver v1.37.2 answers a get (and a watch) with a 500
		// without a reason: its storage's field error is no API error.
		{"bad resourceVersion", "GET", "/api/v1/namespaces/default/pods/p?resourceVersion=abc", "", "",
			500, "", `resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax`},
		{"bad resourceVersion of a list", "GET", "/api/v1/namespaces/default/configmaps?resourceVersion=abc", "", "",
			400, metav1.StatusReasonBadRequest, `invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax`},
		{"negative resourceVersion of a watch", "GET", "/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=-1", "", "",
			500, "", `resourceVersion: Invalid value: "-1": strconv.ParseUint: parsing "-1": invalid syntax`},
		{"future resourceVersion", "GET", "/api/v1/pods?resourceVersion=999999&resourceVersionMatch=NotOlderThan", "", "",
			504, metav1.StatusReasonTimeout, "Too large resource version: 999999, current: "},
		// go-restful refuses what no route's media types match, before any
		// handler, as upstream's routes are built (a list's route produces
		// the watch stream types too).
		{"not acceptable", "GET", "/api/v1/namespaces/default/pods", "", "",
			406, metav1.StatusReasonNotAcceptable, "406: Not Acceptable\n\nAvailable representations: application/json, application/yaml, application/vnd.kubernetes.protobuf, application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch"},
		{"not acceptable object", "GET", "/api/v1/namespaces/default/pods/p", "", "",
			406, metav1.StatusReasonNotAcceptable, "406: Not Acceptable\n\nAvailable representations: application/json, application/yaml, application/vnd.kubernetes.protobuf"},
		{"patch of an unsupported media type", "PATCH", "/api/v1/namespaces/default/pods/p", "application/json", `{"metadata":{"labels":{"a":"b"}}}`,
			415, metav1.StatusReasonUnsupportedMediaType, "415: Unsupported Media Type"},
		{"status patch of an unsupported media type", "PATCH", "/api/v1/namespaces/default/pods/p/status", "text/plain", `{}`,
			415, metav1.StatusReasonUnsupportedMediaType, "415: Unsupported Media Type"},
		{"delete default namespace", "DELETE", "/api/v1/namespaces/default", "", "",
			403, metav1.StatusReasonForbidden, `namespaces "default" is forbidden: this namespace may not be deleted`},
		{"bad delete options", "DELETE", "/api/v1/namespaces/default/pods/p", "application/json", `{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Sideways"}`,
			422, metav1.StatusReasonInvalid, "propagationPolicy: Unsupported value"},
	}
	// One pod the update and patch cases can aim at.
	if code, body := ts.do(t, "POST", "/api/v1/namespaces/default/pods", "application/json", podJSON); code != 201 {
		t.Fatalf("setup: %d %s", code, body)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := etcdRevision(t, ts.etcd)
			var header []string
			if strings.HasPrefix(tt.name, "not acceptable") {
				header = []string{"Accept", "application/cbor"}
			}
			code, body := ts.do(t, tt.method, tt.path, tt.contentType, tt.body, header...)
			if code != tt.code {
				t.Fatalf("code = %d, want %d; body %.300s", code, tt.code, body)
			}
			var st metav1.Status
			if err := json.Unmarshal([]byte(body), &st); err != nil {
				t.Fatalf("body is not a Status: %v: %.300s", err, body)
			}
			if st.Kind != "Status" || st.APIVersion != "v1" || st.Status != metav1.StatusFailure || int(st.Code) != tt.code || st.Reason != tt.reason {
				t.Errorf("status = %s/%s %s code %d reason %q, want v1/Status Failure %d %q", st.APIVersion, st.Kind, st.Status, st.Code, st.Reason, tt.code, tt.reason)
			}
			if !strings.Contains(st.Message, tt.message) {
				t.Errorf("message = %q, want it to contain %q", st.Message, tt.message)
			}
			// go-restful's refusals of media types carry an empty details
			// object, as upstream's serviceErrorHandler writes them.
			if goRestful := strings.HasPrefix(tt.message, "406: ") || strings.HasPrefix(tt.message, "415: "); goRestful && !strings.Contains(body, `"details":{}`) {
				t.Errorf("body %s: want details {}", body)
			}
			if after := etcdRevision(t, ts.etcd); after != before {
				t.Errorf("etcd revision moved %d -> %d: a rejected request wrote something", before, after)
			}
		})
	}

	t.Run("invalid name has field causes", func(t *testing.T) {
		_, body := ts.do(t, "POST", "/api/v1/namespaces/default/pods", "application/json", strings.Replace(podJSON, `"name":"p"`, `"name":"Not_Valid"`, 1))
		var st metav1.Status
		if err := json.Unmarshal([]byte(body), &st); err != nil {
			t.Fatal(err)
		}
		if st.Details == nil || st.Details.Kind != "Pod" || st.Details.Name != "Not_Valid" || len(st.Details.Causes) != 1 ||
			st.Details.Causes[0].Field != "metadata.name" || st.Details.Causes[0].Type != metav1.CauseTypeFieldValueInvalid {
			t.Errorf("details = %+v, want kind Pod, name Not_Valid and a FieldValueInvalid cause on metadata.name", st.Details)
		}
	})

	t.Run("unknown field warns by default", func(t *testing.T) {
		req, _ := http.NewRequest("POST", ts.url+"/api/v1/namespaces/default/pods", strings.NewReader(strings.Replace(strings.Replace(podJSON, `"spec":{`, `"spec":{"colour":"blue",`, 1), `"name":"p"`, `"name":"warned"`, 1)))
		req.Header.Set("Authorization", "Bearer "+adminToken)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 201 || resp.Header.Get("Warning") != `299 - "unknown field \"spec.colour\""` {
			t.Errorf("code %d Warning %q, want 201 and a 299 warning naming spec.colour", resp.StatusCode, resp.Header.Get("Warning"))
		}
	})

	t.Run("dry run writes nothing", func(t *testing.T) {
		before := etcdRevision(t, ts.etcd)
		code, body := ts.do(t, "POST", "/api/v1/namespaces/default/pods?dryRun=All", "application/json", strings.Replace(podJSON, `"name":"p"`, `"name":"dry"`, 1))
		if code != 201 || !strings.Contains(body, `"uid"`) {
			t.Errorf("dry-run create: %d %.200s, want 201 with the object as it would be stored", code, body)
		}
		code, _ = ts.do(t, "DELETE", "/api/v1/namespaces/default/pods/p?dryRun=All", "", "")
		if code != 200 {
			t.Errorf("dry-run delete: %d", code)
		}
		if after := etcdRevision(t, ts.etcd); after != before {
			t.Errorf("dry runs moved the etcd revision %d -> %d", before, after)
		}
		if code, _ := ts.do(t, "GET", "/api/v1/namespaces/default/pods/dry", "", ""); code != 404 {
			t.Errorf("dry-run pod exists (GET %d)", code)
		}
	})
}

func etcdRevision(tb testing.TB, c *clientv3.Client) int64 {
	tb.Helper()
	resp, err := c.Get(context.Background(), "/registry/", clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil {
		tb.Fatal(err)
	}
	return resp.Header.Revision
}

// TestPatchThatDoesNotApply checks the answers to patches that do not
// apply against kube-apiserver v1.37.2's: a JSON patch's is a 422 with the
// generic message and details without causes; a strategic merge patch
// with an unknown $patch is a 500 without a reason.
func TestPatchThatDoesNotApply(t *testing.T) {
	ts := startServer(t)
	if code, body := ts.do(t, "POST", "/api/v1/namespaces/default/configmaps", "application/json", `{"metadata":{"name":"cm1"},"data":{"a":"1"}}`); code != 201 {
		t.Fatalf("setup: %d %s", code, body)
	}
	tests := []struct {
		name, contentType, patch string
		want                     string
	}{
		{"test fails", "application/json-patch+json", `[{"op":"test","path":"/data/a","value":"nope"}]`,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server rejected our request due to an error in our request","reason":"Invalid","details":{},"code":422}`},
		{"bad path", "application/json-patch+json", `[{"op":"replace","path":"/data/missing/x","value":"1"}]`,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server rejected our request due to an error in our request","reason":"Invalid","details":{},"code":422}`},
		{"unknown $patch", "application/strategic-merge-patch+json", `{"data":{"$patch":"bogus"}}`,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"unknown patch type: bogus in map: map[$patch:bogus]","code":500}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, body := ts.do(t, "PATCH", "/api/v1/namespaces/default/configmaps/cm1", tt.contentType, tt.patch)
			if strings.TrimSpace(body) != tt.want {
				t.Errorf("got  %s\nwant %s", body, tt.want)
			}
		})
	}
}
