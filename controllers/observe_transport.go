package controllers

import (
	"net/http"
	"strings"

	"k8s.io/client-go/rest"
)

// observeWrites makes rc's client note every write it sends, with the
// answer's status code, in the syncRecord of the request's context (see
// withSyncRecord); requests without one, and reads, pass untouched.
func observeWrites(rc *rest.Config) *rest.Config {
	rc.Wrap(func(rt http.RoundTripper) http.RoundTripper { return writeRecorder{rt} })
	return rc
}

// writeRecorder is the transport observeWrites adds.
type writeRecorder struct{ next http.RoundTripper }

func (t writeRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	rec := recordOf(req.Context())
	if rec == nil || !isWrite(req.Method) {
		return t.next.RoundTrip(req)
	}
	resp, err := t.next.RoundTrip(req)
	w, slotted := req.Context().Value(writeSlotKey{}).(*Write)
	if !slotted {
		w = &Write{}
	}
	rec.mu.Lock()
	w.Method = req.Method
	w.Resource, w.Subresource, w.Namespace, w.Name = apiPathParts(req.URL.Path, w.Name)
	if err != nil {
		w.Code, w.Error = 0, err.Error()
	} else {
		w.Code, w.Error = resp.StatusCode, ""
	}
	rec.mu.Unlock()
	if !slotted || !rec.has(w) {
		rec.addWrite(w)
	}
	return resp, err
}

// has reports whether w is in r already (a slot sent again on a retry).
func (r *syncRecord) has(w *Write) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, o := range r.writes {
		if o == w {
			return true
		}
	}
	return false
}

func isWrite(method string) bool {
	switch method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		return true
	}
	return false
}

// apiPathParts reads an API path (/api/v1/namespaces/ns/pods/name/status,
// /apis/apps/v1/namespaces/ns/replicasets, /api/v1/nodes/name): the
// resource, subresource, namespace and name (name, when the path has
// none: a create).
func apiPathParts(path, name string) (resource, subresource, namespace, outName string) {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		parts = parts[2:]
	case len(parts) >= 3 && parts[0] == "apis":
		parts = parts[3:]
	default:
		return path, "", "", name
	}
	// As upstream's RequestInfo: namespaces/<ns>/<resource>..., but
	// namespaces/<name>/status and /finalize are the namespace's own.
	if len(parts) > 2 && parts[0] == "namespaces" && parts[2] != "status" && parts[2] != "finalize" {
		namespace, parts = parts[1], parts[2:]
	}
	outName = name
	switch len(parts) {
	case 0:
	case 1:
		resource = parts[0]
	case 2:
		resource, outName = parts[0], parts[1]
	default:
		resource, outName, subresource = parts[0], parts[1], strings.Join(parts[2:], "/")
	}
	return resource, subresource, namespace, outName
}
