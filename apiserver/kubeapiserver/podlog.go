package kubeapiserver

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/request"
	"github.com/kubesim/kubesim/internal/podlog"
)

// podLogResource is what errors about a pod's log name.
var podLogResource = schema.GroupResource{Resource: "pods/log"}

// podLog serves GET pods/<name>/log as kube-apiserver's LogREST: it reads
// the options, the pod and the container (upstream's LogLocation), asks
// the kubelet of the pod's node for
// /containerLogs/<namespace>/<pod>/<container>, and streams its answer
// back as text/plain, flushed as it comes with follow=true. A pod with no
// node yet has no log: 204 No Content, as upstream.
func (ps *podStreams) podLog(w http.ResponseWriter, r *http.Request, p apiserver.Params) error {
	opts, err := podlog.ParseOptions(r.URL.Query())
	if err != nil {
		return apierrors.NewBadRequest(err.Error())
	}
	if errs := podlog.Validate(opts); len(errs) > 0 {
		return apierrors.NewInvalid(schema.GroupKind{Kind: "PodLogOptions"}, p.Name, errs)
	}
	pod, err := ps.readPod(r, p)
	if err != nil {
		return err
	}
	container, err := logContainer(opts.Container, pod)
	if err != nil {
		return err
	}
	t := request.TraceFrom(r.Context())
	if pod.Spec.NodeName == "" {
		t.Step("kubelet", "no node", fmt.Sprintf("pod %s is not scheduled: no kubelet has its log (204 No Content)", pod.Name))
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	loc, err := ps.kubeletLocation(r.Context(), pod.Spec.NodeName)
	if err != nil {
		return err
	}
	u := &url.URL{Scheme: "https", Host: net.JoinHostPort(loc.host, loc.port),
		Path: fmt.Sprintf("/containerLogs/%s/%s/%s", pod.Namespace, pod.Name, container), RawQuery: podlog.Query(opts).Encode()}
	resp, err := ps.askKubelet(r, u, pod.Spec.NodeName)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := kubeletResponseError(resp, p.Name); err != nil {
		t.Step("kubelet", "error", fmt.Sprintf("kubelet answered %s", resp.Status), "status", resp.Status)
		return err
	}
	t.Step("kubelet", "ok", fmt.Sprintf("kubelet answered %s; the log is streamed back as it is read", resp.Status), "status", resp.Status, "follow", fmt.Sprint(opts.Follow))
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(http.StatusOK)
	copyFlushing(w, resp.Body, opts.Follow)
	return nil
}

// readPod reads the pod of a subresource request from storage.
func (ps *podStreams) readPod(r *http.Request, p apiserver.Params) (*corev1.Pod, error) {
	obj, err := ps.reg.Pods.Get(r.Context(), p.Namespace, p.Name, &metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return nil, apierrors.NewInternalError(fmt.Errorf("pod %s: unexpected object %T", p.Name, obj))
	}
	key := ps.reg.Pods.Key(p.Namespace, p.Name)
	request.TraceFrom(r.Context()).Step("read", "ok", fmt.Sprintf("etcd get %s: revision %s", key, pod.ResourceVersion), "key", key, "revision", pod.ResourceVersion)
	return pod, nil
}

// askKubelet sends GET u to the kubelet of node, recording the hop.
func (ps *podStreams) askKubelet(r *http.Request, u *url.URL, node string) (*http.Response, error) {
	detail := fmt.Sprintf("GET %s (the kubelet of %s, at the address and port its Node status gives)", u, node)
	if note := ps.cfg.DialNote; note != "" {
		detail += "; " + note
	}
	request.TraceFrom(r.Context()).Step("proxied", "sent", detail, "url", u.String(), "node", node)
	req, err := http.NewRequestWithContext(r.Context(), http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	client := &http.Client{Transport: ps.kubelets.roundTripper(ps.cfg),
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	return resp, nil
}

// kubeletResponseError turns a kubelet's error answer into the API
// error upstream's GenericHttpResponseChecker makes of it: the kubelet's
// text becomes the message, 400 a BadRequest, 500 an InternalError.
func kubeletResponseError(resp *http.Response, name string) error {
	if resp.StatusCode >= http.StatusOK && resp.StatusCode <= http.StatusPartialContent {
		return nil
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 50000))
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	text := string(body)
	switch resp.StatusCode {
	case http.StatusInternalServerError:
		return apierrors.NewInternalError(fmt.Errorf("%s", text))
	case http.StatusBadRequest:
		return apierrors.NewBadRequest(text)
	}
	return apierrors.NewGenericServerResponse(resp.StatusCode, "", podLogResource, name, text, 0, false)
}

// copyFlushing copies the kubelet's answer to w, flushing after every
// read when flush is set (a followed log reaches the client line by
// line), until the kubelet's stream or the client's request ends.
func copyFlushing(w http.ResponseWriter, body io.Reader, flush bool) {
	f, _ := w.(http.Flusher)
	if flush && f != nil {
		f.Flush()
	}
	buf := make([]byte, 32*1024)
	for {
		n, err := body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return
			}
			if flush && f != nil {
				f.Flush()
			}
		}
		if err != nil {
			return
		}
	}
}

// logContainer picks the container whose log is asked for, with
// upstream's errors (validateContainer): the only container when none is
// named, else a named one of the pod's.
func logContainer(name string, pod *corev1.Pod) (string, error) {
	if name == "" {
		switch len(pod.Spec.Containers) {
		case 1:
			return pod.Spec.Containers[0].Name, nil
		case 0:
			return "", apierrors.NewBadRequest(fmt.Sprintf("a container name must be specified for pod %s", pod.Name))
		}
		return "", apierrors.NewBadRequest(fmt.Sprintf("a container name must be specified for pod %s, choose one of: %s", pod.Name, containerNames(pod)))
	}
	for _, n := range containerNames(pod) {
		if n == name {
			return name, nil
		}
	}
	return "", apierrors.NewBadRequest(fmt.Sprintf("container %s is not valid for pod %s", name, pod.Name))
}

// containerNames lists the pod's containers as upstream visits them:
// init, app, then ephemeral containers, printed as [a b c].
func containerNames(pod *corev1.Pod) names {
	var out names
	for _, c := range pod.Spec.InitContainers {
		out = append(out, c.Name)
	}
	for _, c := range pod.Spec.Containers {
		out = append(out, c.Name)
	}
	for _, c := range pod.Spec.EphemeralContainers {
		out = append(out, c.Name)
	}
	return out
}

// names prints as Go prints a []string: [a b c].
type names []string

func (n names) String() string { return "[" + strings.Join(n, " ") + "]" }
