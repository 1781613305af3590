package scenarios

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/internal/pki"
)

// kubectlStopWait is how long kubectl has to end after its interrupt
// before it is killed.
const kubectlStopWait = 10 * time.Second

// kubectlWatcher runs `kubectl get pods --watch` as the step's user.
type kubectlWatcher struct {
	l       *watchLog
	path    string // the kubectl binary
	version string // its client version, from its User-Agent
	dir     string // its kubeconfig and cache, removed by stop
	cancel  context.CancelFunc
	done    chan struct{} // closed once kubectl has ended
	stderr  []string      // its log's last lines, for errors
}

// kubectlArgs are the command's arguments after the kubeconfig.
func kubectlArgs(namespace string) []string {
	return []string{"get", "pods", "--namespace", namespace, "--watch", "--output-watch-events", "-v=8"}
}

// startKubectl writes a kubeconfig of user for the API server url into
// a temporary directory and starts kubectl (the binary at path) with it.
func startKubectl(ctx context.Context, p *player, user, url, path, namespace string) (*kubectlWatcher, error) {
	dir, err := os.MkdirTemp("", "kubesim-kubectl-")
	if err != nil {
		return nil, err
	}
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := writeUserKubeconfig(p, user, url, kubeconfig); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	kctx, cancel := context.WithCancel(ctx)
	args := append([]string{"--kubeconfig", kubeconfig, "--cache-dir", filepath.Join(dir, "cache")}, kubectlArgs(namespace)...)
	cmd := exec.CommandContext(kctx, path, args...)
	cmd.Env = append(os.Environ(), "HOME="+dir, "KUBECONFIG="+kubeconfig)
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) } // as Ctrl-C
	cmd.WaitDelay = kubectlStopWait
	k := &kubectlWatcher{l: newWatchLog(), path: path, dir: dir, cancel: cancel, done: make(chan struct{})}
	var lp kubectlLogParser
	cmd.Stdout = &lineWriter{l: k.l, fn: func(s string) { k.l.lines = append(k.l.lines, s) }}
	cmd.Stderr = &lineWriter{l: k.l, fn: func(s string) {
		lp.line(k.l, s)
		k.stderr = append(k.stderr, s)
		if len(k.stderr) > 20 {
			k.stderr = k.stderr[1:]
		}
	}}
	if err := cmd.Start(); err != nil {
		cancel()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("start kubectl: %w", err)
	}
	go func() {
		defer close(k.done)
		err := cmd.Wait()
		if kctx.Err() == nil && err != nil {
			k.l.mu.Lock()
			tail := strings.Join(k.stderr, "\n")
			k.l.mu.Unlock()
			err = fmt.Errorf("kubectl: %w; its last lines:\n%s", err, tail)
		} else {
			err = nil
		}
		k.l.end(err)
	}()
	return k, nil
}

// writeUserKubeconfig writes a kubeconfig with user's client certificate
// for the API server at url.
func writeUserKubeconfig(p *player, user, url, path string) error {
	id, err := cluster.IdentityOf(user)
	if err != nil {
		return err
	}
	kc, err := p.cluster.Authority.Kubeconfig(url, id, pki.ClientCertificate)
	if err != nil {
		return err
	}
	return pki.WriteKubeconfig(path, kc)
}

func (k *kubectlWatcher) client() string {
	return fmt.Sprintf("kubectl %s (%s)", k.version, k.path)
}

func (k *kubectlWatcher) waitWatching(ctx context.Context) error {
	err := k.l.waitWatching(ctx)
	reqs, _ := k.l.snapshot()
	for _, r := range reqs {
		if v, ok := strings.CutPrefix(r.UserAgent, "kubectl/"); ok {
			k.version, _, _ = strings.Cut(v, " ")
		}
	}
	return err
}

func (k *kubectlWatcher) waitLine(ctx context.Context, match func(string) bool) error {
	return k.l.waitLine(ctx, match)
}

func (k *kubectlWatcher) log() *watchLog { return k.l }

// stop interrupts kubectl, as Ctrl-C does (kubectl's watch returns), and
// waits for it to end (killed after kubectlStopWait).
func (k *kubectlWatcher) stop() error {
	k.cancel()
	<-k.done
	os.RemoveAll(k.dir)
	k.l.mu.Lock()
	defer k.l.mu.Unlock()
	return k.l.endErr
}

// kubectlLogParser reads the requests out of kubectl's -v=8 log: client-
// go's round_trippers lines "GET https://...", "Request Headers:",
// "    Accept: ...", "Response Status: 200 OK in 1 milliseconds",
// "Response Headers:", "    Audit-Id: ...", then the "Response Body".
type kubectlLogParser struct {
	inResponse bool // the headers that follow are the response's
}

var (
	klogPrefix = regexp.MustCompile(`^[IWEF]\d{4} [0-9:.]+\s+\d+ [^\]]+\] `)
	logRequest = regexp.MustCompile(`^(GET|POST|PUT|PATCH|DELETE) (https?://\S+)$`)
	logStatus  = regexp.MustCompile(`^Response Status: (\d{3}[^\n]*?)(?: in \d+ milliseconds)?$`)
	logBodyRV  = regexp.MustCompile(`\\"resourceVersion\\":\\"([0-9]+)\\"`)
)

// line reads one line of the log into l (whose lock the caller holds).
func (lp *kubectlLogParser) line(l *watchLog, s string) {
	msg := klogPrefix.ReplaceAllString(s, "")
	if msg == s {
		return // not a klog line
	}
	if m := logRequest.FindStringSubmatch(msg); m != nil {
		l.reqs = append(l.reqs, clientRequest{Method: m[1], URL: m[2]})
		lp.inResponse = false
		return
	}
	if len(l.reqs) == 0 {
		return
	}
	r := &l.reqs[len(l.reqs)-1]
	if m := logStatus.FindStringSubmatch(msg); m != nil {
		r.Status, lp.inResponse = m[1], true
		return
	}
	if strings.HasPrefix(msg, `"Response Body"`) {
		if m := logBodyRV.FindStringSubmatch(msg); m != nil && !r.isWatch() {
			r.ListRV = m[1]
		}
		return
	}
	name, value, ok := strings.Cut(strings.TrimSpace(msg), ": ")
	if !ok || !strings.HasPrefix(msg, "    ") {
		return
	}
	switch {
	case !lp.inResponse && name == "Accept":
		r.Accept = value
	case !lp.inResponse && name == "User-Agent":
		r.UserAgent = value
	case lp.inResponse && name == "Audit-Id":
		r.AuditID = value
	case lp.inResponse && name == "Content-Type":
		r.ContentType = value
	}
}
