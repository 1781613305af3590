package apiserver

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/uuid"

	"github.com/kubesim/kubesim/apiserver/auth"
	"github.com/kubesim/kubesim/apiserver/request"
)

// buildHandlerChain wraps the go-restful container in the request filters,
// inside out: each line wraps everything above it, so the last line runs
// first on a request. This is kube-apiserver's order.
func (s *Server) buildHandlerChain(apiHandler http.Handler) http.Handler {
	h := apiHandler
	h = withAuthorization(h, s)  // Node, then RBAC: 403 unless one allows
	h = withMaxInFlight(h, s)    // 429 past the in-flight limits (watches exempt)
	h = withImpersonation(h, s)  // Impersonate-User/-Group/-Uid/-Extra-*, if the caller may
	h = withAudit(h, s)          // audit.k8s.io/v1 events: received, started, complete
	h = withAuthentication(h, s) // bearer token or client certificate; 401 otherwise
	h = withTimeout(h, s)        // non-watch requests end after 60 s with 504
	h = withCacheControl(h)      // responses about cluster state are never cached
	h = withPanicRecovery(h, s)  // a panic anywhere becomes a 500 Status; the server lives on
	h = withTrace(h, s)          // the learner's step-by-step trace of the request
	h = withAuditID(h)           // every request gets an id, echoed in Audit-Id
	h = withRequestInfo(h, s)    // verb, resource, namespace, name from method and path
	return h
}

// withRequestInfo resolves the request's verb and resource, as
// kube-apiserver's RequestInfo filter does.
func withRequestInfo(h http.Handler, s *Server) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, err := auth.ResolveRequest(r)
		if err != nil {
			s.WriteError(w, r, apierrors.NewInternalError(fmt.Errorf("%q: failed to create RequestInfo: %w", r.URL.RequestURI(), err)))
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
// system:anonymous on the health and version paths and 401 elsewhere.
func withAuthentication(h http.Handler, s *Server) http.Handler {
	authn := auth.WithAnonymous(s.authn)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t := request.TraceFrom(r.Context())
		res, ok, err := authn.AuthenticateRequest(r)
		if err != nil || !ok {
			why := "no credentials"
			if err != nil {
				why = err.Error()
			}
			t.Step("authenticated", "failed", "not authenticated: "+why)
			unauthorized := apierrors.NewUnauthorized("Unauthorized")
			st := unauthorized.Status()
			s.audit(r, nil, auditResponseStarted, http.StatusUnauthorized, &st)
			s.WriteError(w, r, unauthorized)
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
func withAuthorization(h http.Handler, s *Server) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, _ := request.AttributesFrom(r.Context())
		t := request.TraceFrom(r.Context())
		res, err := s.authorizer.Authorize(r.Context(), a)
		ac := request.AuditFrom(r.Context())
		if err == nil && res.Decision == auth.DecisionAllow {
			if t.Recording() {
				t.Step("authorized", "allowed", allowedBecause(res), "authorizer", res.Authorizer, "reason", res.Reason, "rule", res.Rule)
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
		s.WriteError(w, r, auth.Forbidden(a, reason))
	})
}

// withPanicRecovery answers a handler panic with a 500 Status (when the
// response has not started) instead of dropping the connection.
func withPanicRecovery(h http.Handler, s *Server) http.Handler {
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
			s.cfg.errorLog().Printf("panic serving %s %s: %v", r.Method, r.URL.Path, v)
			request.TraceFrom(r.Context()).Step("panicked", "failed", fmt.Sprint(v))
			if !rw.started {
				s.WriteError(w, r, apierrors.NewInternalError(fmt.Errorf("this request caused the server to panic: %v", v)))
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
func withAudit(h http.Handler, s *Server) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.auditLog == nil {
			h.ServeHTTP(w, r)
			return
		}
		ac := &request.AuditContext{Received: time.Now()}
		ctx := request.WithAudit(r.Context(), ac)
		r = r.WithContext(ctx)
		s.audit(r, ac, auditRequestReceived, 0, nil)
		aw := &auditWriter{ResponseWriter: w}
		if isLongRunning(r) {
			aw.onStart = func(code int) { s.audit(r, ac, auditResponseStarted, code, nil) }
		}
		h.ServeHTTP(aw, r)
		code := aw.code
		if code == 0 {
			code = http.StatusOK
		}
		s.audit(r, ac, auditResponseComplete, code, ac.Status)
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
func (s *Server) audit(r *http.Request, ac *request.AuditContext, stage string, code int, st *metav1.Status) {
	if s.auditLog == nil {
		return
	}
	a, _ := request.AttributesFrom(r.Context())
	received := time.Now()
	if ac != nil {
		received = ac.Received
	}
	ev := &auditEvent{
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
		ev.User = auditUser{Username: a.User.Name, Groups: a.User.Groups}
	}
	if ac != nil {
		if u := ac.Impersonated; u != nil {
			ev.ImpersonatedUser = &auditUser{Username: u.Name, UID: u.UID, Groups: u.Groups, Extra: u.Extra}
		}
		if len(ac.Annotations) > 0 {
			ev.Annotations = ac.Annotations
		}
	}
	if a.ResourceRequest {
		ref := &auditObjectRef{Resource: a.Resource, Namespace: a.Namespace, Name: a.Name, APIGroup: a.APIGroup, APIVersion: a.APIVersion, Subresource: a.Subresource}
		if ref.Name == "" && ac != nil {
			ref.Name = ac.ObjectName
		}
		ev.ObjectRef = ref
	}
	if stage != auditRequestReceived {
		rs := &metav1.Status{Code: int32(code)}
		if st != nil && code >= 400 {
			rs = st.DeepCopy()
			rs.TypeMeta = metav1.TypeMeta{}
		}
		ev.ResponseStatus = rs
	}
	s.auditLog.write(ev)
}

// allowedBecause says, for the trace, why a request was allowed: RBAC's
// reason, or (the Node authorizer gives none, as upstream's) the
// authorizer and the system:node rule that covers the request.
func allowedBecause(res auth.Result) string {
	if res.Reason != "" {
		return res.Reason
	}
	msg := res.Authorizer + " authorizer: allowed"
	if res.Rule != "" {
		msg += " by the rule " + res.Rule
	}
	return msg
}
