package scenarios

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// LogsAction reads a container's log through the API server as kubectl
// logs does: of the pod named, or, for job/NAME, of the first of the
// Job's pods (its selector's pods in kubectl's ByLogging order: bound
// before unbound, Running before Unknown before Pending, ready before
// not, more restarts before fewer, older before newer), from its
// container named Container or else its first. The step's message is
// the log as sent (GET pods/NAME/log).
type LogsAction struct {
	Object    ObjectSpec // Kind Pod or Job
	Container string
}

var _ actionRunner = (*LogsAction)(nil)

// logsDoc is logs as written.
type logsDoc struct {
	Object    str         `yaml:"object" load:"required"`
	Namespace *objectName `yaml:"namespace"`
	Container *str        `yaml:"container"`
}

func init() {
	registerTranscriptZh(map[string]string{
		"Found %d pods, using pod/%s": "找到 %d 个 Pod，使用 pod/%s",
		"> GET %s":                    "> GET %s",
		"< %s":                        "< %s",
	})
}

// Kind returns "logs".
func (a *LogsAction) Kind() string { return "logs" }

// String is the kubectl command it does.
func (a *LogsAction) String() string {
	s := "kubectl logs " + strings.ToLower(a.Object.Kind) + "/" + a.Object.Name
	if a.Container != "" {
		s += " -c " + a.Container
	}
	if a.Object.Namespace != DefaultNamespace {
		s += " -n " + a.Object.Namespace
	}
	return s
}

// parseLogs reads {object, namespace, container}: object is NAME or
// pod/NAME (a pod) or job/NAME.
func parseLogs(_ *loader, _ string, n *yaml.Node) (actionRunner, error) {
	var d logsDoc
	if err := decode(n, &d); err != nil {
		return nil, err
	}
	a := &LogsAction{Object: ObjectSpec{Kind: "Pod", Namespace: DefaultNamespace}, Container: d.Container.or("")}
	if d.Namespace != nil {
		a.Object.Namespace = string(*d.Namespace)
	}
	typ, name, found := strings.Cut(string(d.Object), "/")
	if !found {
		typ, name = "pod", typ
	}
	switch typ {
	case "pod", "pods", "po":
	case "job", "jobs":
		a.Object.Kind = "Job"
	default:
		return nil, errAt(valueOf(n, "object"), "object: %q is not pod/NAME or job/NAME", string(d.Object))
	}
	if name == "" {
		return nil, errAt(valueOf(n, "object"), "object: %q names nothing", string(d.Object))
	}
	a.Object.Name = name
	return a, nil
}

// run finds the pod and reads its log as user.
func (a *LogsAction) run(ctx context.Context, p *player, user string) (StepResult, error) {
	cs, err := p.typedClient(user)
	if err != nil {
		return StepResult{}, err
	}
	var res StepResult
	pod, err := a.pod(ctx, cs, &res)
	if err != nil {
		failed := resultOf(err, http.StatusOK)
		res.Status, res.Message = failed.Status, failed.Message
		return res, err
	}
	container := a.Container
	if container == "" {
		container = pod.Spec.Containers[0].Name
	}
	addTranscript(&res, "> GET %s", fmt.Sprintf("pods/%s/log?container=%s", pod.Name, container))
	body, err := cs.CoreV1().Pods(pod.Namespace).GetLogs(pod.Name, &corev1.PodLogOptions{Container: container}).DoRaw(ctx)
	if err != nil {
		failed := resultOf(err, http.StatusOK)
		res.Status, res.Message = failed.Status, failed.Message
		return res, err
	}
	res.Status, res.Message = http.StatusOK, string(body)
	for _, line := range strings.Split(strings.TrimSuffix(string(body), "\n"), "\n") {
		addTranscript(&res, "< %s", line)
	}
	return res, nil
}

// pod returns the pod whose log to read: the one named, or the Job's
// first as kubectl's GetFirstPod picks it.
func (a *LogsAction) pod(ctx context.Context, cs kubernetes.Interface, res *StepResult) (*corev1.Pod, error) {
	ns := a.Object.Namespace
	if a.Object.Kind == "Pod" {
		return cs.CoreV1().Pods(ns).Get(ctx, a.Object.Name, metav1.GetOptions{})
	}
	job, err := cs.BatchV1().Jobs(ns).Get(ctx, a.Object.Name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	sel, err := metav1.LabelSelectorAsSelector(job.Spec.Selector)
	if err != nil {
		return nil, fmt.Errorf("invalid label selector: %w", err)
	}
	list, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return nil, err
	}
	if len(list.Items) == 0 {
		return nil, fmt.Errorf("timed out waiting for the condition")
	}
	pods := make([]*corev1.Pod, len(list.Items))
	for i := range list.Items {
		pods[i] = &list.Items[i]
	}
	sort.Sort(byLogging(pods))
	if len(pods) > 1 {
		addTranscript(res, "Found %d pods, using pod/%s", len(pods), pods[0].Name)
	}
	return pods[0], nil
}
