package scenarios

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	yaml "go.yaml.in/yaml/v3"
)

// HTTP modes and protocols.
const (
	ModeRequest  = "request"
	ModePoll     = "poll"
	ModeLongPoll = "longpoll"
	ModeWatch    = "watch"
	ProtoHTTP1   = "http1"
	ProtoHTTP2   = "http2"
)

// HTTPAction is a raw request against the API server, with the client
// certificate of the step's user.
type HTTPAction struct {
	Method string
	Path   string
	// Mode is ModeRequest, ModePoll, ModeLongPoll or ModeWatch.
	Mode string
	// Proto is ProtoHTTP1 or ProtoHTTP2.
	Proto string
	// Count is the number of polls, long-poll rounds or watch events; 0
	// for a watch means: read until the server ends the stream.
	Count int
	// Interval is the pause between polls, at speed 1.
	Interval    time.Duration
	Body        string
	ContentType string
	// ResourceVersionOf, if set, puts a resourceVersion this run saw for
	// an object into the path's query (resourceVersion=...).
	ResourceVersionOf *ResourceVersionRef
}

// ResourceVersionRef names a resourceVersion of an object: the first the
// run saw for it (the one its create returned), or its current one (read
// when the action runs).
type ResourceVersionRef struct {
	Object ObjectSpec
	// Version is "first" or "current".
	Version string
}

var _ actionRunner = (*HTTPAction)(nil)

// httpDoc is http as written.
type httpDoc struct {
	Method            *str      `yaml:"method"`
	Path              str       `yaml:"path" load:"required"`
	Mode              *str      `yaml:"mode"`
	Proto             *str      `yaml:"proto"`
	Count             *integer  `yaml:"count"`
	Interval          *duration `yaml:"interval"`
	Body              *str      `yaml:"body"`
	ContentType       *str      `yaml:"contentType"`
	ResourceVersionOf *rvOfDoc  `yaml:"resourceVersionOf"`
}

// rvOfDoc is a ResourceVersionRef as written.
type rvOfDoc struct {
	objectDoc `yaml:",inline"`
	Version   *str `yaml:"version"`
}

// The fields of http and the values some of them take.
var (
	httpMethods = []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"}
	httpModes   = []string{ModeRequest, ModePoll, ModeLongPoll, ModeWatch}
	httpProtos  = []string{ProtoHTTP1, ProtoHTTP2}
)

func (a *HTTPAction) Kind() string { return "http" }
func (a *HTTPAction) String() string {
	proto := "HTTP/2"
	if a.Proto == ProtoHTTP1 {
		proto = "HTTP/1.1"
	}
	s := fmt.Sprintf("http %s %s (%s, %s", a.Method, a.Path, a.Mode, proto)
	switch a.Mode {
	case ModePoll:
		s += fmt.Sprintf(", %d requests %s apart", a.Count, a.Interval)
	case ModeLongPoll:
		s += fmt.Sprintf(", %d rounds", a.Count)
	case ModeWatch:
		switch a.Count {
		case 0:
			s += ", until the server ends it"
		case 1:
			s += ", 1 event"
		default:
			s += fmt.Sprintf(", %d events", a.Count)
		}
	}
	if r := a.ResourceVersionOf; r != nil {
		s += fmt.Sprintf(", from the %s resourceVersion of %s", r.Version, r.Object)
	}
	return s + ")"
}

// parseHTTP reads {method, path, mode, proto, count, interval, body,
// contentType}: a GET of path (which starts with /) in mode request over
// HTTP/2 unless the fields say otherwise; modes other than request only
// GET.
func parseHTTP(l *loader, _ string, n *yaml.Node) (actionRunner, error) {
	var d httpDoc
	if err := decode(n, &d); err != nil {
		return nil, err
	}
	a := &HTTPAction{Method: "GET", Path: string(d.Path), Mode: ModeRequest, Proto: ProtoHTTP2, Count: 1, Interval: DefaultPollInterval}
	if !strings.HasPrefix(a.Path, "/") {
		return nil, errAt(valueOf(n, "path"), "%q must start with /", a.Path)
	}
	var err error
	for _, c := range []struct {
		key     string
		v       *str
		dst     *string
		allowed []string
	}{{"method", d.Method, &a.Method, httpMethods}, {"mode", d.Mode, &a.Mode, httpModes}, {"proto", d.Proto, &a.Proto, httpProtos}} {
		if *c.dst, err = c.v.oneOf(valueOf(n, c.key), *c.dst, c.allowed); err != nil {
			return nil, err
		}
	}
	if c := d.Count; c != nil {
		if (*c < 1 && !(*c == 0 && a.Mode == ModeWatch)) || *c > 1000 {
			return nil, errAt(valueOf(n, "count"), "%d: use 1 to 1000 (0 for a watch read until the server ends it)", *c)
		}
		a.Count = int(*c)
	}
	if d.ResourceVersionOf != nil {
		if a.ResourceVersionOf, err = l.resourceVersionRef(valueOf(n, "resourceVersionOf"), *d.ResourceVersionOf); err != nil {
			return nil, err
		}
	}
	if d.Interval != nil {
		a.Interval = time.Duration(*d.Interval)
	}
	a.Body, a.ContentType = d.Body.or(""), d.ContentType.or("")
	if a.Mode != ModeRequest && a.Method != "GET" {
		return nil, errAt(n, "mode %s only GETs (method is %s)", a.Mode, a.Method)
	}
	return a, nil
}

// resourceVersionRef returns the ResourceVersionRef d, read from n,
// names: its version is first (the default) or current.
func (l *loader) resourceVersionRef(n *yaml.Node, d rvOfDoc) (*ResourceVersionRef, error) {
	ref := &ResourceVersionRef{}
	var err error
	if ref.Object, err = l.objectRef(n, d.objectDoc); err != nil {
		return nil, err
	}
	if ref.Version, err = d.Version.oneOf(valueOf(n, "version"), "first", []string{"first", "current"}); err != nil {
		return nil, err
	}
	return ref, nil
}

// run sends the action's requests as user, in its mode, and returns the
// last response's status and body, the watch events read and the
// transcript.
func (a *HTTPAction) run(ctx context.Context, p *player, user string) (StepResult, error) {
	hc, err := p.httpClientAs(user)
	if err != nil {
		return StepResult{}, err
	}
	path := a.Path
	if ref := a.ResourceVersionOf; ref != nil {
		rv, err := p.resourceVersionOf(ctx, ref)
		if err != nil {
			return StepResult{}, err
		}
		path = withQuery(path, "resourceVersion", rv)
	}
	r := &httpRun{ctx: ctx, p: p, a: a, hc: hc, path: path}
	err = r.run()
	return r.res, err
}

// target is the path the requests go to: the action's, with the
// resourceVersion it names when run set one.
func (r *httpRun) target() string {
	if r.path == "" {
		return r.a.Path
	}
	return r.path
}

// httpRun is one run of an http action: the result it builds up.
type httpRun struct {
	ctx context.Context
	p   *player
	a   *HTTPAction
	hc  *httpClient
	// path is the action's path, with the resourceVersion it names.
	path string
	res  StepResult
	// watched is set once the first watch request was sent.
	watched bool
}

// run sends the requests of the action's mode.
func (r *httpRun) run() error {
	switch r.a.Mode {
	case ModeRequest:
		return r.exchangeOnce(r.target(), 0)
	case ModePoll:
		return r.poll()
	case ModeLongPoll:
		return r.longPoll()
	case ModeWatch:
		path := r.target()
		if !strings.Contains(path, "/watch/") && !hasQuery(path, "watch") {
			path = withQuery(path, "watch", "1")
		}
		if r.a.Count == 0 {
			return r.exchangeOnce(path, untilTheEnd)
		}
		return r.exchangeOnce(path, r.a.Count)
	}
	return fmt.Errorf("unknown http mode %q", r.a.Mode)
}

// logf adds a line to the transcript.
func (r *httpRun) logf(format string, args ...any) {
	addTranscript(&r.res, format, args...)
}

// send makes one request for path over the action's protocol (reading
// stopAfter watch events, if more than 0) and notes its audit id.
func (r *httpRun) send(path string, stopAfter int) (exchange, error) {
	var ex exchange
	var err error
	if r.a.Proto == ProtoHTTP1 {
		ex, err = r.hc.http1(r.ctx, r.a, path, stopAfter, r.logf)
	} else {
		ex, err = r.hc.http2(r.ctx, r.a, path, stopAfter, r.logf)
	}
	r.p.noteRequest(ex.auditID)
	if stopAfter != 0 && !r.watched {
		// The first watch: where it started from, for the watchRV fact.
		r.watched = true
		if u, perr := url.Parse(path); perr == nil {
			r.res.WatchFrom = u.Query().Get("resourceVersion")
		}
	}
	return ex, err
}

// note makes ex the result's last response and adds its watch events.
func (r *httpRun) note(ex exchange) {
	r.res.Status = ex.status
	r.res.Message = string(ex.body)
	for _, ev := range ex.events {
		r.res.Watch = append(r.res.Watch, ev.Type)
		r.res.WatchVersions = append(r.res.WatchVersions, ev.Object.Metadata.ResourceVersion)
	}
}

// exchangeOnce sends one request and notes its response.
func (r *httpRun) exchangeOnce(path string, stopAfter int) error {
	ex, err := r.send(path, stopAfter)
	r.note(ex)
	return err
}

// poll sends Count GETs, Interval (scaled) apart, noting the
// resourceVersion of each list.
func (r *httpRun) poll() error {
	for i := 1; i <= r.a.Count; i++ {
		r.logf("-- poll %d of %d", i, r.a.Count)
		ex, err := r.send(r.target(), 0)
		r.note(ex)
		if err != nil {
			return err
		}
		if rv := resourceVersionOf(ex.body); rv != "" {
			r.logf("   resourceVersion %s", rv)
		}
		if phase, restarts, ok := podProgress(ex.body); ok {
			r.logf("   phase %s, %d container restarts", phase, restarts)
		}
		if i < r.a.Count {
			if err := sleep(r.ctx, r.p.scaled(r.a.Interval)); err != nil {
				return err
			}
		}
	}
	return nil
}

// longPoll reads the current state for its resourceVersion, then makes
// Count watches from the last resourceVersion seen, each closed by the
// client after its first event: Kubernetes has no long-poll endpoint, and
// a watch the client ends at once is the closest thing to one.
func (r *httpRun) longPoll() error {
	r.logf("-- the current state first, to learn its resourceVersion")
	ex, err := r.send(r.target(), 0)
	if err != nil || ex.status != http.StatusOK {
		r.note(ex)
		return err
	}
	rv := resourceVersionOf(ex.body)
	r.logf("   resourceVersion %s", rv)
	for i := 1; i <= r.a.Count; i++ {
		path := withQuery(withQuery(r.target(), "watch", "1"), "resourceVersion", rv)
		r.logf("-- long-poll round %d of %d: a watch from resourceVersion %s, which the client closes after its first event", i, r.a.Count, rv)
		ex, err := r.send(path, 1)
		r.note(ex)
		if err != nil {
			return err
		}
		for _, ev := range ex.events {
			if ev.Object.Metadata.ResourceVersion != "" {
				rv = ev.Object.Metadata.ResourceVersion
			}
		}
		r.logf("   round over; the next one from resourceVersion %s", rv)
	}
	return nil
}
