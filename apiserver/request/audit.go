package request

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver/auth"
)

// AuditContext carries what inner filters and handlers learn for the
// audit events of a request.
type AuditContext struct {
	Received     time.Time
	Annotations  map[string]string
	Impersonated *auth.User
	Status       *metav1.Status
	ObjectName   string
}

type auditKey struct{}

// WithAudit returns ctx carrying ac.
func WithAudit(ctx context.Context, ac *AuditContext) context.Context {
	return context.WithValue(ctx, auditKey{}, ac)
}

// AuditFrom returns the request's audit context, nil when it is not
// audited.
func AuditFrom(ctx context.Context) *AuditContext {
	ac, _ := ctx.Value(auditKey{}).(*AuditContext)
	return ac
}

// Annotate adds an annotation to the audit events (nothing on nil).
func (ac *AuditContext) Annotate(k, v string) {
	if ac == nil {
		return
	}
	if ac.Annotations == nil {
		ac.Annotations = map[string]string{}
	}
	ac.Annotations[k] = v
}
