package scenarios

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
)

// EvictAction asks the API server to evict one pod, as kubectl drain
// does for each pod of a node: POST pods/<name>/eviction with a policy/v1
// Eviction. The pod is named, or is the one pod (not being deleted) that
// matches Selector, on Node if given: the pods of a Deployment have
// names no scenario can know. The eviction is sent once; the step's
// status and message are the API server's answer (429 and the
// disruption budget's refusal, with its causes, when a budget allows no
// disruption).
type EvictAction struct {
	Pod       string
	Selector  string
	Node      string
	Namespace string
}

var _ actionRunner = (*EvictAction)(nil)

// evictDoc is evict as written.
type evictDoc struct {
	Pod       *objectName `yaml:"pod"`
	Selector  *str        `yaml:"selector"`
	Node      *objectName `yaml:"node"`
	Namespace *objectName `yaml:"namespace"`
}

func init() {
	registerTranscriptZh(map[string]string{
		"> POST pods/%s/eviction (policy/v1 Eviction)": "> POST pods/%s/eviction（policy/v1 Eviction）",
		"< %d %s": "< %d %s",
	})
}

// Kind returns "evict".
func (a *EvictAction) Kind() string { return "evict" }

// String names the request and the pod.
func (a *EvictAction) String() string {
	what := a.Pod
	if what == "" {
		what = "the pod " + a.Selector
		if a.Node != "" {
			what += " on " + a.Node
		}
	}
	return "POST pods/eviction of " + nsName(a.Namespace, what)
}

// parseEvict reads {pod, selector, node, namespace}: pod, or selector
// (with node, optionally), not both.
func parseEvict(_ *loader, _ string, n *yaml.Node) (actionRunner, error) {
	var d evictDoc
	if err := decode(n, &d); err != nil {
		return nil, err
	}
	a := &EvictAction{Namespace: DefaultNamespace}
	if d.Namespace != nil {
		a.Namespace = string(*d.Namespace)
	}
	switch {
	case d.Pod != nil && (d.Selector != nil || d.Node != nil):
		return nil, errAt(valueOf(n, "pod"), "give pod, or selector (and node), not both")
	case d.Pod != nil:
		a.Pod = string(*d.Pod)
	case d.Selector != nil:
		if _, err := labels.Parse(string(*d.Selector)); err != nil {
			return nil, errAt(valueOf(n, "selector"), "selector: %v", err)
		}
		a.Selector = string(*d.Selector)
		if d.Node != nil {
			a.Node = string(*d.Node)
		}
	default:
		return nil, errAt(n, "missing field \"pod\" (or \"selector\")")
	}
	return a, nil
}

// run finds the pod and sends its eviction as user.
func (a *EvictAction) run(ctx context.Context, p *player, user string) (StepResult, error) {
	cs, err := p.typedClient(user)
	if err != nil {
		return StepResult{}, err
	}
	pod, err := a.target(ctx, cs)
	if err != nil {
		return resultOf(err, http.StatusOK), err
	}
	var res StepResult
	addTranscript(&res, "> POST pods/%s/eviction (policy/v1 Eviction)", pod.Name)
	ans, err := evictPod(ctx, cs, pod)
	if err != nil {
		res.Message = err.Error()
		return res, err
	}
	res.Status = ans.status
	if ans.err != nil {
		res.Message = statusText(ans.err)
		addTranscript(&res, "< %d %s", ans.status, res.Message)
		return res, ans.err
	}
	addTranscript(&res, "< %d %s", ans.status, http.StatusText(ans.status))
	return res, nil
}

// target is the pod named, or the one that matches the selector (and
// node) and is not being deleted.
func (a *EvictAction) target(ctx context.Context, cs kubernetes.Interface) (*corev1.Pod, error) {
	if a.Pod != "" {
		return cs.CoreV1().Pods(a.Namespace).Get(ctx, a.Pod, metav1.GetOptions{})
	}
	opts := metav1.ListOptions{LabelSelector: a.Selector}
	if a.Node != "" {
		opts.FieldSelector = fields.OneTermEqualSelector("spec.nodeName", a.Node).String()
	}
	list, err := cs.CoreV1().Pods(a.Namespace).List(ctx, opts)
	if err != nil {
		return nil, err
	}
	var found []*corev1.Pod
	var names []string
	for i := range list.Items {
		if list.Items[i].DeletionTimestamp == nil {
			found = append(found, &list.Items[i])
			names = append(names, list.Items[i].Name)
		}
	}
	if len(found) != 1 {
		return nil, fmt.Errorf("evict: %d pods match %s (%s); evict takes one", len(found), a, strings.Join(names, ", "))
	}
	return found[0], nil
}
