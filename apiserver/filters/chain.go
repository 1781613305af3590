// Package filters holds the filters every request passes before it reaches
// a server of the delegation chain, as k8s.io/apiserver's filters: request
// info, audit id, trace, panic recovery, cache control, timeout,
// warning recorder, authentication, audit, impersonation, in-flight
// limits, authorization.
// BuildHandlerChain chains them in kube-apiserver's order.
package filters

import (
	"fmt"
	"log"
	"net"
	"net/http"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/uuid"
	genericapifilters "k8s.io/apiserver/pkg/endpoints/filters"

	"github.com/kubesim/kubesim/apiserver/audit"
	"github.com/kubesim/kubesim/apiserver/auth"
	"github.com/kubesim/kubesim/apiserver/request"
	"github.com/kubesim/kubesim/internal/flow"
)

// Config is what the filters need of the server they stand in front of.
type Config struct {
	// Authenticator identifies callers (the configured one, then service
	// account tokens); Authorizer decides (Node, then RBAC).
	Authenticator auth.Authenticator
	Authorizer    auth.Authorizer
	// AuditLog receives the audit events; nil: no audit.
	AuditLog *audit.Log
	// ErrorLog is where a panic or a failed audit write is logged.
	ErrorLog *log.Logger
	// RequestTimeout ends non-watch requests (504).
	RequestTimeout time.Duration
	// MaxRequestsInFlight and MaxMutatingRequestsInFlight size the
	// in-flight limits (429 past them).
	MaxRequestsInFlight, MaxMutatingRequestsInFlight int
	// Inflight counts the requests executing past those limits (nil: not
	// counted).
	Inflight *Inflight
	// Recorder receives the traces of requests, signed by Component.
	Recorder  *flow.Recorder
	Component string
	// WriteError answers an error as a metav1.Status, encoded as the
	// request asks.
	WriteError func(w http.ResponseWriter, r *http.Request, err error)
}

// BuildHandlerChain wraps apiHandler (the first server of the delegation
// chain) in the request filters, inside out: each line wraps everything
// above it, so the last line runs first on a request. This is
// kube-apiserver's order.
func BuildHandlerChain(apiHandler http.Handler, c *Config) http.Handler {
	h := apiHandler
	h = withAuthorization(h, c)                  // Node, then RBAC: 403 unless one allows
	h = withMaxInFlight(h, c)                    // 429 past the in-flight limits (watches exempt)
	h = withImpersonation(h, c)                  // Impersonate-User/-Group/-Uid/-Extra-*, if the caller may
	h = withAudit(h, c)                          // audit.k8s.io/v1 events: received, started, complete
	h = withAuthentication(h, c)                 // bearer token or client certificate; 401 otherwise
	h = genericapifilters.WithWarningRecorder(h) // warning.AddWarning becomes a "Warning: 299 - ..." header (upstream's own filter)
	h = withTimeout(h, c)                        // non-watch requests end after 60 s with 504
	h = withCacheControl(h)                      // responses about cluster state are never cached
	h = withPanicRecovery(h, c)                  // a panic anywhere becomes a 500 Status; the server lives on
	h = withTrace(h, c)                          // the learner's step-by-step trace of the request
	h = withAuditID(h)                           // every request gets an id, echoed in Audit-Id
	h = withRequestInfo(h, c)                    // verb, resource, namespace, name from method and path
	return h
}

// withRequestInfo resolves the request's verb and resource, as
// kube-apiserver's RequestInfo filter does.
func withRequestInfo(h http.Handler, c *Config) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, err := auth.ResolveRequest(r)
		if err != nil {
			c.WriteError(w, r, apierrors.NewInternalError(fmt.Errorf("%q: failed to create RequestInfo: %w", r.URL.RequestURI(), err)))
			return
		}
		h.ServeHTTP(w, r.WithContext(request.WithAttributes(r.Context(), a)))
	})
}

// isLongRunning reports whether a request streams and so is exempt from
// the request timeout and the in-flight limits: a watch, or, as
// kube-apiserver's BasicLongRunningRequestCheck says, a request on a
// subresource that streams (a followed log, exec, attach, portforward).
func isLongRunning(r *http.Request) bool {
	a, _ := request.AttributesFrom(r.Context())
	return a.Verb == auth.VerbWatch || longRunningSubresources[a.Subresource]
}

// longRunningSubresources are upstream's long-running subresources.
var longRunningSubresources = map[string]bool{"attach": true, "exec": true, "proxy": true, "log": true, "portforward": true}

// withCacheControl marks every response private and uncached, as
// kube-apiserver does.
func withCacheControl(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache, private")
		h.ServeHTTP(w, r)
	})
}

// withAuditID gives the request an id (the client's Audit-ID if it sent
// one) and returns it in the Audit-Id header.
func withAuditID(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("Audit-ID")
		if id == "" {
			id = string(uuid.NewUUID())
			r.Header.Set("Audit-ID", id)
		}
		w.Header().Set("Audit-Id", id)
		h.ServeHTTP(w, r)
	})
}

// withAuthentication identifies the caller: a bearer token or a client
// certificate signed by the cluster's CA; no credentials is
// system:anonymous, left to authorization (403 but on the health and
// version paths); bad credentials are 401.
func withAuthentication(h http.Handler, c *Config) http.Handler {
	authn := auth.WithAnonymous(c.Authenticator)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t := request.TraceFrom(r.Context())
		res, ok, err := authn.AuthenticateRequest(r)
		if err != nil || !ok {
			why := "no credentials"
			if err != nil {
				why = err.Error()
			}
			t.Step("authenticated", "failed", "not authenticated: "+why, "error", why)
			unauthorized := apierrors.NewUnauthorized("Unauthorized")
			st := unauthorized.Status()
			c.audit(r, nil, audit.StageResponseStarted, http.StatusUnauthorized, &st)
			c.WriteError(w, r, unauthorized)
			return
		}
		a, _ := request.AttributesFrom(r.Context())
		a.User = res.User
		t.SetUser(res.User.Name, res.User.Groups)
		t.SetVerb(a.Verb)
		if t.Recording() {
			t.Step("authenticated", "ok", fmt.Sprintf("user %q, groups %v, by %s", res.User.Name, res.User.Groups, res.Method),
				"user", res.User.Name, "groups", strings.Join(res.User.Groups, ","), "method", string(res.Method))
		}
		h.ServeHTTP(w, r.WithContext(request.WithAttributes(r.Context(), a)))
	})
}

// withAuthorization asks the authorizers (Node, then RBAC) whether the
// user may do this; a denial is 403 with kube-apiserver's message.
func withAuthorization(h http.Handler, c *Config) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, _ := request.AttributesFrom(r.Context())
		t := request.TraceFrom(r.Context())
		res, err := c.Authorizer.Authorize(r.Context(), a)
		ac := request.AuditFrom(r.Context())
		if err == nil && res.Decision == auth.DecisionAllow {
			if t.Recording() {
				t.Step("authorized", "allowed", AllowedBecause(res), "authorizer", res.Authorizer, "reason", res.Reason, "rule", res.Rule)
			}
			ac.Annotate("authorization.k8s.io/decision", "allow")
			ac.Annotate("authorization.k8s.io/reason", res.Reason)
			h.ServeHTTP(w, r)
			return
		}
		reason := res.Reason
		if err != nil {
			reason = err.Error()
		}
		t.Step("authorized", "denied", auth.ForbiddenMessage(a), "reason", reason)
		ac.Annotate("authorization.k8s.io/decision", "forbid")
		ac.Annotate("authorization.k8s.io/reason", reason)
		c.WriteError(w, r, auth.Forbidden(a, reason))
	})
}

// withPanicRecovery answers a handler panic with a 500 Status (when the
// response has not started) instead of dropping the connection.
func withPanicRecovery(h http.Handler, c *Config) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rw := &startedWriter{ResponseWriter: w}
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v)
			}
			c.ErrorLog.Printf("panic serving %s %s: %v", r.Method, r.URL.Path, v)
			request.TraceFrom(r.Context()).Step("panicked", "failed", fmt.Sprint(v))
			if !rw.started {
				c.WriteError(w, r, apierrors.NewInternalError(fmt.Errorf("this request caused the server to panic: %v", v)))
			}
		}()
		h.ServeHTTP(rw, r)
	})
}

// startedWriter records whether the response has begun.
type startedWriter struct {
	http.ResponseWriter
	started bool
}

func (w *startedWriter) WriteHeader(code int) {
	w.started = true
	w.ResponseWriter.WriteHeader(code)
}

func (w *startedWriter) Write(b []byte) (int, error) {
	w.started = true
	return w.ResponseWriter.Write(b)
}

// Flush lets streaming handlers (watch) push each chunk out.
func (w *startedWriter) Flush() {
	w.started = true
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController access to the real writer.
func (w *startedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// withAudit writes the audit events of a request: RequestReceived when it
// arrives, ResponseStarted when a watch starts streaming, ResponseComplete
// when it ends.
func withAudit(h http.Handler, c *Config) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c.AuditLog == nil {
			h.ServeHTTP(w, r)
			return
		}
		ac := &request.AuditContext{Received: time.Now()}
		ctx := request.WithAudit(r.Context(), ac)
		r = r.WithContext(ctx)
		c.audit(r, ac, audit.StageRequestReceived, 0, nil)
		aw := &auditWriter{ResponseWriter: w}
		if isLongRunning(r) {
			aw.onStart = func(code int) { c.audit(r, ac, audit.StageResponseStarted, code, nil) }
		}
		h.ServeHTTP(aw, r)
		code := aw.code
		if code == 0 {
			code = http.StatusOK
		}
		c.audit(r, ac, audit.StageResponseComplete, code, ac.Status)
	})
}

// auditWriter notices the start of the response.
type auditWriter struct {
	http.ResponseWriter
	code    int
	onStart func(code int)
}

func (w *auditWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
		if w.onStart != nil {
			w.onStart(code)
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *auditWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

func (w *auditWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *auditWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// audit writes one audit event for r. ac may be nil (a request that failed
// authentication is audited once, complete).
func (c *Config) audit(r *http.Request, ac *request.AuditContext, stage string, code int, st *metav1.Status) {
	if c.AuditLog == nil {
		return
	}
	a, _ := request.AttributesFrom(r.Context())
	received := time.Now()
	if ac != nil {
		received = ac.Received
	}
	ev := &audit.Event{
		Kind:                     "Event",
		APIVersion:               "audit.k8s.io/v1",
		Level:                    "Metadata",
		AuditID:                  r.Header.Get("Audit-ID"),
		Stage:                    stage,
		RequestURI:               r.URL.RequestURI(),
		Verb:                     a.Verb,
		SourceIPs:                sourceIPs(r),
		UserAgent:                r.UserAgent(),
		RequestReceivedTimestamp: metav1.NewMicroTime(received),
		StageTimestamp:           microNow(),
	}
	if a.User != nil {
		ev.User = audit.User{Username: a.User.Name, Groups: a.User.Groups}
	}
	if ac != nil {
		if u := ac.Impersonated; u != nil {
			ev.ImpersonatedUser = &audit.User{Username: u.Name, UID: u.UID, Groups: u.Groups, Extra: u.Extra}
		}
		if len(ac.Annotations) > 0 {
			ev.Annotations = ac.Annotations
		}
	}
	if a.ResourceRequest {
		ref := &audit.ObjectRef{Resource: a.Resource, Namespace: a.Namespace, Name: a.Name, APIGroup: a.APIGroup, APIVersion: a.APIVersion, Subresource: a.Subresource}
		if ref.Name == "" && ac != nil {
			ref.Name = ac.ObjectName
		}
		ev.ObjectRef = ref
	}
	if stage != audit.StageRequestReceived {
		rs := &metav1.Status{Code: int32(code)}
		if st != nil && code >= 400 {
			rs = st.DeepCopy()
			rs.TypeMeta = metav1.TypeMeta{}
		}
		ev.ResponseStatus = rs
	}
	c.AuditLog.Write(ev)
}

// AllowedBecause says, for the trace, why a request was allowed: RBAC's
// reason, or (the Node authorizer gives none, as upstream's) the
// authorizer and the system:node rule that covers the request.
func AllowedBecause(res auth.Result) string {
	if res.Reason != "" {
		return res.Reason
	}
	msg := res.Authorizer + " authorizer: allowed"
	if res.Rule != "" {
		msg += " by the rule " + res.Rule
	}
	return msg
}

// sourceIPs lists the client's address (and X-Forwarded-For, which
// kubesim does not trust for anything else).
func sourceIPs(r *http.Request) []string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return []string{host}
}

func microNow() metav1.MicroTime { return metav1.NewMicroTime(time.Now()) }
