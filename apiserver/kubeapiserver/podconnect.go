package kubeapiserver

import (
	"fmt"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/auth"
	"github.com/kubesim/kubesim/apiserver/filters"
	"github.com/kubesim/kubesim/apiserver/request"
)

// Pod subresources that would stream to a process in the pod.
const (
	subExec        = "exec"
	subAttach      = "attach"
	subPortForward = "portforward"
	subLog         = "log"
)

// podConnect serves GET and POST on pods/<name>/exec, attach and
// portforward (kubectl exec, attach, cp, port-forward). Upstream checks,
// as here, that a GET (kubectl's WebSocket upgrade) is allowed to create
// too (the AuthorizePodWebsocketUpgradeCreatePermission check, on by
// default since v1.35), finds the pod, its container and its node, and
// then proxies the upgraded connection to the node's kubelet, which runs
// the command in the container. kubesim runs no processes: after the
// same checks it answers 400 Bad Request with a Status that says so,
// which kubectl prints as "Error from server (BadRequest): ...".
func (ps *podStreams) podConnect(sub string, w http.ResponseWriter, r *http.Request, p apiserver.Params) error {
	if r.Method == http.MethodGet {
		if err := ps.authorizeCreate(r); err != nil {
			return err
		}
	}
	pod, err := ps.readPod(r, p)
	if err != nil {
		return err
	}
	container := ""
	if sub != subPortForward {
		if container, err = logContainer(r.URL.Query().Get("container"), pod); err != nil {
			return err
		}
	}
	if pod.Spec.NodeName == "" {
		return apierrors.NewBadRequest(fmt.Sprintf("pod %s does not have a host assigned", pod.Name))
	}
	msg := noProcessMessage(sub, pod.Name, container, pod.Spec.NodeName, r)
	request.TraceFrom(r.Context()).Step("kubelet", "not proxied", "kubesim's kubelets run no processes: no connection is made to "+pod.Spec.NodeName)
	return apierrors.NewBadRequest(msg)
}

// authorizeCreate asks the authorizers whether the caller of a GET on a
// pod's exec, attach or portforward may also create it.
func (ps *podStreams) authorizeCreate(r *http.Request) error {
	a, _ := request.AttributesFrom(r.Context())
	a.Verb = auth.VerbCreate
	res, err := ps.authorizer.Authorize(r.Context(), a)
	t := request.TraceFrom(r.Context())
	if err == nil && res.Decision == auth.DecisionAllow {
		t.Step("authorized", "allowed", "create too, as upstream asks of a GET that upgrades: "+filters.AllowedBecause(res), "authorizer", res.Authorizer, "rule", res.Rule)
		return nil
	}
	reason := res.Reason
	if err != nil {
		reason = err.Error()
	}
	t.Step("authorized", "denied", auth.ForbiddenMessage(a), "reason", reason)
	return auth.Forbidden(a, reason)
}

// noProcessMessage says why kubesim cannot do what kubectl asked.
func noProcessMessage(sub, pod, container, node string, r *http.Request) string {
	base := fmt.Sprintf("kubesim runs no real processes: pod %s is simulated by the fake runtime of %s", pod, node)
	switch sub {
	case subExec:
		cmd := strings.Join(r.URL.Query()["command"], " ")
		return fmt.Sprintf("%s, so container %s has no process to run %q in (kubectl cp uses exec with tar, and fails the same way); kubectl logs %s shows what it made up", base, container, cmd, pod)
	case subAttach:
		return fmt.Sprintf("%s, so container %s has no process to attach to; kubectl logs %s shows what it made up", base, container, pod)
	}
	if ports := r.URL.Query()["ports"]; len(ports) > 0 {
		return fmt.Sprintf("%s, so no process listens on port %s to forward to", base, strings.Join(ports, ", "))
	}
	return base + ", so no process listens on any of its ports to forward to"
}
