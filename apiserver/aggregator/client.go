package aggregator

import (
	"context"

	"k8s.io/apimachinery/pkg/types"
	apiregv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// Client writes APIServices, as the aggregator's controllers do through
// their loopback client upstream. Errors are apimachinery StatusErrors
// (apierrors.IsNotFound, IsAlreadyExists, IsConflict work on them).
type Client interface {
	Create(ctx context.Context, a *apiregv1.APIService) (*apiregv1.APIService, error)
	// Update replaces spec and metadata (not status); a.ResourceVersion
	// must be current.
	Update(ctx context.Context, a *apiregv1.APIService) (*apiregv1.APIService, error)
	// UpdateStatus replaces the status only; a.ResourceVersion must be
	// current.
	UpdateStatus(ctx context.Context, a *apiregv1.APIService) (*apiregv1.APIService, error)
	// Delete removes the APIService called name if its uid is uid.
	Delete(ctx context.Context, name string, uid types.UID) error
}
