package apiserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// HealthCheck is one named check of /healthz, /livez or /readyz.
type HealthCheck struct {
	Name  string
	Check func(r *http.Request) error
}

// AddHealthCheck adds a check to the health endpoints, after the post-start
// hooks' (the aggregator's autoregister-completion). It is called before
// Run.
func (s *Server) AddHealthCheck(name string, check func(r *http.Request) error) {
	s.healthExtra = append(s.healthExtra, HealthCheck{name, check})
}

// etcdHealthTimeout and etcdReadyTimeout bound the etcd checks' reads,
// as kube-apiserver's --etcd-healthcheck-timeout and
// --etcd-readycheck-timeout (2s each by default).
const (
	etcdHealthTimeout = 2 * time.Second
	etcdReadyTimeout  = 2 * time.Second
)

// errHookNotFinished is a post-start hook's check until it has returned.
var errHookNotFinished = errors.New("not finished")

// errShuttingDown is the shutdown check's once shutdown has begun.
var errShuttingDown = errors.New("process is shutting down")

// livezChecks returns the checks of /livez and /healthz, in the order
// they are listed: ping, etcd, then poststarthook/<name> for every
// post-start hook in registration order, then the checks the servers of
// the chain added (the aggregator's autoregister-completion). As
// kube-apiserver's, they are the checks of a process that should be
// restarted when one fails: no readiness-only check. kube-apiserver's
// also have log and loopback-serving-certificate, which kubesim (no klog
// flush, no loopback client certificate) has not.
func (s *Server) livezChecks() []HealthCheck {
	checks := []HealthCheck{
		{"ping", func(*http.Request) error { return nil }},
		{"etcd", s.etcdCheck(etcdHealthTimeout)},
	}
	return append(append(checks, s.hookChecks()...), s.healthExtra...)
}

// readyzChecks returns the checks of /readyz, in the order they are
// listed, as kube-apiserver's: ping, etcd, then the readiness-only
// etcd-readiness and informer-sync (the admission plugins' informers have
// listed), the post-start hooks and the chain's checks as on /livez, and
// last shutdown, which fails once the server has begun to shut down
// (kube-apiserver's ShutdownInitiated), so that load balancers stop
// sending to it while it drains. kube-apiserver's also have log.
func (s *Server) readyzChecks() []HealthCheck {
	checks := []HealthCheck{
		{"ping", func(*http.Request) error { return nil }},
		{"etcd", s.etcdCheck(etcdHealthTimeout)},
		{"etcd-readiness", s.etcdCheck(etcdReadyTimeout)},
	}
	if s.admissionInformers != nil {
		checks = append(checks, HealthCheck{"informer-sync", s.admissionInformers.syncedCheck})
	}
	checks = append(append(checks, s.hookChecks()...), s.healthExtra...)
	return append(checks, HealthCheck{"shutdown", func(*http.Request) error {
		select {
		case <-s.shutdownInitiated:
			return errShuttingDown
		default:
			return nil
		}
	}})
}

// etcdCheck reads etcd within timeout, as kube-apiserver's etcd prober
// does.
func (s *Server) etcdCheck(timeout time.Duration) func(r *http.Request) error {
	return func(r *http.Request) error {
		ctx, cancel := context.WithTimeout(r.Context(), timeout)
		defer cancel()
		_, err := s.cfg.Etcd.Get(ctx, "/registry/health", clientv3.WithCountOnly())
		return err
	}
}

// hookChecks is one check per post-start hook, poststarthook/<name>, in
// registration order: it passes once the hook has returned.
func (s *Server) hookChecks() []HealthCheck {
	var checks []HealthCheck
	for _, h := range s.hooks.list() {
		checks = append(checks, HealthCheck{"poststarthook/" + h.name, func(*http.Request) error {
			select {
			case <-h.done:
				return nil
			default:
				return errHookNotFinished
			}
		}})
	}
	return checks
}

// healthChecks returns the checks of endpoint base: readyz's, or
// livez's (livez and healthz).
func (s *Server) healthChecks(base string) []HealthCheck {
	if base == "readyz" {
		return s.readyzChecks()
	}
	return s.livezChecks()
}

// health serves /healthz, /livez and /readyz and each check's own path
// (/readyz/etcd, /readyz/poststarthook/rbac/bootstrap-roles), as
// k8s.io/apiserver's healthz handlers do: the endpoint passes when every
// check not excluded (?exclude=<name>, repeatable) passes, answering "ok",
// or with ?verbose a "[+]<name> ok" line per check and "<endpoint> check
// passed". When one fails it answers 500 with every line, the failed ones
// as "[-]<name> failed: reason withheld", and "<endpoint> check failed".
// A check's own path answers "ok", or 500 "internal server error: <why>".
// An unknown check is Go's plain 404, "404 page not found".
func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	base, name, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	checks := s.healthChecks(base)
	if name == "" {
		serveHealth(w, r, base, checks)
		return
	}
	for _, c := range checks {
		if c.Name == name {
			if err := c.Check(r); err != nil {
				http.Error(w, fmt.Sprintf("internal server error: %v", err), http.StatusInternalServerError)
				return
			}
			setHealthHeaders(w)
			fmt.Fprint(w, "ok")
			return
		}
	}
	// Upstream registers a path per check on its non-go-restful mux; a
	// path it lacks falls through the chain to Go's plain 404.
	http.NotFound(w, r)
}

// serveHealth answers an endpoint (base: healthz, livez or readyz) from
// checks.
func serveHealth(w http.ResponseWriter, r *http.Request, base string, checks []HealthCheck) {
	excluded := map[string]bool{}
	for _, n := range r.URL.Query()["exclude"] {
		excluded[n] = true
	}
	var out bytes.Buffer
	failed := false
	for _, c := range checks {
		if excluded[c.Name] {
			delete(excluded, c.Name)
			fmt.Fprintf(&out, "[+]%s excluded: ok\n", c.Name)
			continue
		}
		if err := c.Check(r); err != nil {
			// The reason stays out of the public answer, as upstream's.
			fmt.Fprintf(&out, "[-]%s failed: reason withheld\n", c.Name)
			failed = true
			continue
		}
		fmt.Fprintf(&out, "[+]%s ok\n", c.Name)
	}
	if len(excluded) > 0 {
		fmt.Fprintf(&out, "warn: some health checks cannot be excluded: no matches for %s\n", quotedSorted(excluded))
	}
	if failed {
		http.Error(w, fmt.Sprintf("%s%s check failed", out.String(), base), http.StatusInternalServerError)
		return
	}
	setHealthHeaders(w)
	if _, verbose := r.URL.Query()["verbose"]; !verbose {
		fmt.Fprint(w, "ok")
		return
	}
	fmt.Fprintf(w, "%s%s check passed\n", out.String(), base)
}

// setHealthHeaders sets the headers of a health answer that passed.
func setHealthHeaders(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
}

// quotedSorted is the names of set, quoted, sorted, comma-separated.
func quotedSorted(set map[string]bool) string {
	names := make([]string, 0, len(set))
	for n := range set {
		names = append(names, n)
	}
	sort.Strings(names)
	for i, n := range names {
		names[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(names, ",")
}
