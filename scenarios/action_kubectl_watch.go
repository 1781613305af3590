package scenarios

import (
	"context"
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// KubectlWatchAction follows `kubectl get pods --watch` from the client's
// side: it runs the real kubectl (the first on PATH) with
// --output-watch-events and -v=8, whose log has the requests it sends, or,
// without kubectl, sends the same two requests with client-go (the list,
// then a REST client Watch from the list's resourceVersion, with kubectl's
// Accept header) and prints the rows as kubectl's table printer does. Once
// the watch is answered it creates Create (one Pod) as the step's user,
// and reads the printed lines until the Pod's line shows the status Until;
// then it interrupts kubectl. The API server's traces of the list and the
// watch (named by the Audit-Id headers the client logged) are the step's
// requests.
type KubectlWatchAction struct {
	Namespace string
	// Create is the pod created while the watch is open.
	Create *ApplyAction
	// Until is the STATUS column value that ends the watch (Running).
	Until string
}

var _ actionRunner = (*KubectlWatchAction)(nil)

// kubectlWatchDoc is kubectlWatch as written.
type kubectlWatchDoc struct {
	Namespace *objectName `yaml:"namespace"`
	Create    str         `yaml:"create" load:"required"`
	Until     *str        `yaml:"until"`
}

// Kind returns "kubectlWatch".
func (a *KubectlWatchAction) Kind() string { return "kubectlWatch" }

// String is the command it runs.
func (a *KubectlWatchAction) String() string {
	return fmt.Sprintf("kubectl get pods --namespace %s --watch --output-watch-events -v=8, and meanwhile %s, until %s is %s",
		a.Namespace, a.Create, a.podName(), a.Until)
}

// podName is the name of the pod the action creates.
func (a *KubectlWatchAction) podName() string { return a.Create.Objects[0].GetName() }

// parseKubectlWatch reads {namespace, create, until}: create is a manifest
// of one Pod in namespace (default: default), written in the scenario
// file; until defaults to Running.
func parseKubectlWatch(l *loader, _ string, n *yaml.Node) (actionRunner, error) {
	var d kubectlWatchDoc
	if err := decode(n, &d); err != nil {
		return nil, err
	}
	m := valueOf(n, "create")
	objs, err := l.manifest(l.file, string(d.Create), l.blockPos(m), true)
	if err != nil {
		return nil, err
	}
	a := &KubectlWatchAction{Namespace: DefaultNamespace, Create: &ApplyAction{Create: true, Objects: objs}, Until: d.Until.or("Running")}
	if d.Namespace != nil {
		a.Namespace = string(*d.Namespace)
	}
	if len(objs) != 1 || objs[0].GetKind() != "Pod" || objs[0].GetNamespace() != a.Namespace {
		return nil, errAt(m, "create one Pod, in the watched namespace %s", a.Namespace)
	}
	if strings.TrimSpace(a.Until) == "" || strings.ContainsAny(a.Until, " \t") {
		return nil, errAt(valueOf(n, "until"), "%q: one word of the STATUS column (Running)", a.Until)
	}
	return a, nil
}

// run watches with kubectl (or client-go), creates the pod once the watch
// is answered, and reads the printed lines until the pod's shows Until.
func (a *KubectlWatchAction) run(ctx context.Context, p *player, user string) (StepResult, error) {
	before, err := p.podCount(ctx, a.Namespace)
	if err != nil {
		return StepResult{}, err
	}
	w, err := startWatcher(ctx, p, user, a.Namespace)
	if err != nil {
		return StepResult{}, err
	}
	kw := &kubectlWatchRun{a: a, w: w, listed: before}
	err = kw.watchAndCreate(ctx, p, user)
	stopErr := w.stop()
	if err == nil && stopErr != nil {
		err = stopErr
	}
	return kw.result(p), err
}

// watchAndCreate waits for the watch's answer, creates the pod and reads
// lines until its status is Until.
func (kw *kubectlWatchRun) watchAndCreate(ctx context.Context, p *player, user string) error {
	if err := kw.w.waitWatching(ctx); err != nil {
		return err
	}
	res, err := kw.a.Create.run(ctx, p, user)
	kw.created = res
	if err != nil {
		return fmt.Errorf("create %s while watching: %w", kw.a.podName(), err)
	}
	err = kw.w.waitLine(ctx, func(l string) bool {
		f := strings.Fields(l)
		return len(f) >= 4 && f[1] == kw.a.podName() && f[3] == kw.a.Until
	})
	kw.reached = err == nil
	return err
}

// podCount is how many pods namespace has (read as the expectations'
// client, not the step's user: not one of the action's requests).
func (p *player) podCount(ctx context.Context, namespace string) (int, error) {
	list, err := p.admin.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, err
	}
	return len(list.Items), nil
}

// kubectlWatchRun is one run of the action: what it saw.
type kubectlWatchRun struct {
	a *KubectlWatchAction
	w watcher
	// listed is how many pods the namespace had when the watch
	// started: the rows of kubectl's list, printed before any event.
	listed  int
	created StepResult
	// reached: the pod's line with Until was printed.
	reached bool
}
