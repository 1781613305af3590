package scenarios

import (
	"context"
	"fmt"
	"net/http"
	"os/exec"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"
)

// kubectlTableAccept is the Accept header kubectl get sends for its
// human-readable output (k8s.io/kubectl's GetOptions.transformRequests):
// the server is to answer with a Table of rows to print.
const kubectlTableAccept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"

// kubectlChunkSize is kubectl get's --chunk-size default: its list asks
// for pages of 500 (limit=500).
const kubectlChunkSize = 500

// startWatcher starts kubectl if there is one on PATH, else client-go
// sending the same requests.
func startWatcher(ctx context.Context, p *player, user, namespace string) (watcher, error) {
	p.mu.Lock()
	server := p.actionServer
	p.mu.Unlock()
	cfg, err := p.actionConfig(user, server)
	if err != nil {
		return nil, err
	}
	if path, err := exec.LookPath("kubectl"); err == nil {
		return startKubectl(ctx, p, user, cfg.Host, path, namespace)
	}
	return startClientGoWatch(ctx, cfg, namespace)
}

// clientGoWatcher sends kubectl get --watch's two requests with a
// client-go REST client and prints the rows as kubectl's table printer
// does (with --output-watch-events: the event type first).
type clientGoWatcher struct {
	l      *watchLog
	cancel context.CancelFunc
	done   chan struct{}
}

// startClientGoWatch lists the pods of namespace and watches them from
// the list's resourceVersion, in a goroutine of its own.
func startClientGoWatch(ctx context.Context, cfg *rest.Config, namespace string) (*clientGoWatcher, error) {
	w := &clientGoWatcher{l: newWatchLog(), done: make(chan struct{})}
	cfg = rest.CopyConfig(cfg)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return requestLogger{rt: rt, l: w.l} })
	s := runtime.NewScheme()
	if err := metav1.AddMetaToScheme(s); err != nil {
		return nil, err
	}
	cfg.APIPath, cfg.GroupVersion = "/api", &corev1.SchemeGroupVersion
	cfg.NegotiatedSerializer = serializer.NewCodecFactory(s).WithoutConversion()
	rc, err := rest.RESTClientFor(cfg)
	if err != nil {
		return nil, err
	}
	wctx, cancel := context.WithCancel(ctx)
	w.cancel = cancel
	go func() {
		defer close(w.done)
		err := listAndWatch(wctx, rc, namespace, w.l)
		if wctx.Err() != nil {
			err = nil
		}
		w.l.end(err)
	}()
	return w, nil
}

// listAndWatch is kubectl get --watch's part on the wire: the list
// (Helper.List, limit=500), its rows printed, then a watch from the
// list's resourceVersion (Helper.Watch: watch=true, resourceVersion),
// each event's row printed, until ctx is done.
func listAndWatch(ctx context.Context, rc *rest.RESTClient, namespace string, l *watchLog) error {
	var list metav1.Table
	err := rc.Get().Namespace(namespace).Resource("pods").
		VersionedParams(&metav1.ListOptions{Limit: kubectlChunkSize}, metav1.ParameterCodec).
		SetHeader("Accept", kubectlTableAccept).Do(ctx).Into(&list)
	if err != nil {
		return fmt.Errorf("list pods: %w", err)
	}
	l.update(func() { l.reqs[len(l.reqs)-1].ListRV = list.ResourceVersion })
	p := &rowPrinter{l: l, columns: list.ColumnDefinitions}
	p.printRows("ADDED", list.Rows)
	wi, err := rc.Get().Namespace(namespace).Resource("pods").
		VersionedParams(&metav1.ListOptions{ResourceVersion: list.ResourceVersion, Watch: true}, metav1.ParameterCodec).
		SetHeader("Accept", kubectlTableAccept).Watch(ctx)
	if err != nil {
		return fmt.Errorf("watch pods: %w", err)
	}
	defer wi.Stop()
	for ev := range wi.ResultChan() {
		t, ok := ev.Object.(*metav1.Table)
		if !ok {
			return fmt.Errorf("watch event %s carries a %T, not a Table", ev.Type, ev.Object)
		}
		p.printRows(string(ev.Type), t.Rows)
	}
	return ctx.Err()
}

// rowPrinter prints Table rows as kubectl get --output-watch-events
// does (k8s.io/cli-runtime's HumanReadablePrinter): the EVENT column (the
// type padded to 8, formatEventType), then the columns of priority 0,
// headed once by their names in capitals; aligned as by kubectl's
// tabwriter (minimum width 6, padding 3, RememberWidths: a column never
// gets narrower than it was), one block per flush.
type rowPrinter struct {
	l       *watchLog
	columns []metav1.TableColumnDefinition
	headed  bool
	widths  []int
}

// Kubectl's tabwriter settings (printers.GetNewTabWriter).
const (
	tabMinWidth = 6
	tabPadding  = 3
)

// printRows prints the rows of one event (or of the list) as one block.
func (p *rowPrinter) printRows(event string, rows []metav1.TableRow) {
	var block [][]string
	if !p.headed {
		names := []string{"EVENT"}
		for _, c := range p.columns {
			if c.Priority == 0 {
				names = append(names, strings.ToUpper(c.Name))
			}
		}
		block, p.headed = append(block, names), true
	}
	if len(event) < 8 {
		event += strings.Repeat(" ", 8-len(event))
	}
	for _, row := range rows {
		cells := []string{event}
		for i, c := range p.columns {
			if c.Priority == 0 && i < len(row.Cells) {
				cells = append(cells, fmt.Sprint(row.Cells[i]))
			}
		}
		block = append(block, cells)
	}
	lines := p.align(block)
	l := p.l
	l.update(func() { l.lines = append(l.lines, lines...) })
}

// align pads every cell but each line's last to its column's width: the
// widest cell of the block or of the blocks before, plus the padding, at
// least the minimum width.
func (p *rowPrinter) align(block [][]string) []string {
	for _, cells := range block {
		for i, c := range cells[:len(cells)-1] {
			if i == len(p.widths) {
				p.widths = append(p.widths, tabMinWidth)
			}
			p.widths[i] = max(p.widths[i], len(c)+tabPadding)
		}
	}
	var lines []string
	for _, cells := range block {
		var b strings.Builder
		for i, c := range cells[:len(cells)-1] {
			b.WriteString(c + strings.Repeat(" ", p.widths[i]-len(c)))
		}
		b.WriteString(cells[len(cells)-1])
		lines = append(lines, b.String())
	}
	return lines
}

func (w *clientGoWatcher) client() string {
	return "client-go (no kubectl on PATH)"
}

func (w *clientGoWatcher) waitWatching(ctx context.Context) error { return w.l.waitWatching(ctx) }

func (w *clientGoWatcher) waitLine(ctx context.Context, match func(string) bool) error {
	return w.l.waitLine(ctx, match)
}

func (w *clientGoWatcher) log() *watchLog { return w.l }

// stop ends the watch and waits for the goroutine.
func (w *clientGoWatcher) stop() error {
	w.cancel()
	<-w.done
	w.l.mu.Lock()
	defer w.l.mu.Unlock()
	return w.l.endErr
}

// requestLogger logs each request the client-go watcher sends, as
// kubectl's -v=8 log has them: method and URL, Accept and User-Agent,
// then the status, Audit-Id and Content-Type of the answer.
type requestLogger struct {
	rt http.RoundTripper
	l  *watchLog
}

func (r requestLogger) RoundTrip(req *http.Request) (*http.Response, error) {
	cr := clientRequest{Method: req.Method, URL: req.URL.String(), Accept: req.Header.Get("Accept"), UserAgent: req.Header.Get("User-Agent")}
	var i int
	r.l.update(func() { r.l.reqs, i = append(r.l.reqs, cr), len(r.l.reqs) })
	resp, err := r.rt.RoundTrip(req)
	if resp != nil {
		r.l.update(func() {
			got := &r.l.reqs[i]
			got.Status = resp.Status
			got.AuditID, got.ContentType = resp.Header.Get("Audit-Id"), resp.Header.Get("Content-Type")
		})
	}
	return resp, err
}
