package cluster

import (
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"

	"github.com/kubesim/kubesim/internal/pki"
)

// kubeletAcceptContentTypes is the Accept list upstream's kubelet sets
// when its --kube-api-content-type is protobuf (its default): protobuf,
// then JSON for what has no protobuf form.
var kubeletAcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON

// setComponentContentTypes sets on cfg the media types the component
// that id is speaks to the API server, as upstream's binaries do by
// default; cfg of any other user (admin, student) is left as client-go
// makes it.
//
//   - kube-scheduler and kube-controller-manager: ContentType protobuf,
//     AcceptContentTypes empty (their ClientConnection defaults), so
//     client-go sends "Accept: application/vnd.kubernetes.protobuf, */*".
//   - kubelet: ContentType protobuf and AcceptContentTypes protobuf then
//     JSON.
//   - metrics-server: ContentType protobuf, AcceptContentTypes empty.
//
// Dynamic and metadata clients made from cfg set their own types, as
// upstream's; a kind without protobuf (a custom resource) is answered in
// JSON, which the Accept header admits.
func setComponentContentTypes(cfg *rest.Config, id pki.Identity) {
	switch user := id.User; {
	case user == pki.SchedulerUser, user == pki.ControllerManagerUser, user == metricsIdentity.User:
		cfg.ContentType = runtime.ContentTypeProtobuf
	case strings.HasPrefix(user, pki.NodeUserPrefix):
		setKubeletContentTypes(cfg)
	}
}

// setKubeletContentTypes sets on cfg the kubelet's media types (see
// setComponentContentTypes); hollow kubelets, whose clients are made
// from the admin's configuration, take them from here too: they stand
// for kubelets (kubemark's hollow-node, by contrast, sets ContentType
// protobuf only, from its own --kube-api-content-type).
func setKubeletContentTypes(cfg *rest.Config) {
	cfg.ContentType = runtime.ContentTypeProtobuf
	cfg.AcceptContentTypes = kubeletAcceptContentTypes
}
