package registry

// Some kinds (jobs, cronjobs, pod disruption budgets, horizontal pod
// autoscalers) run their upstream registry strategy itself
// (pkg/registry/<group>/<kind>.Strategy and StatusStrategy), whose
// PrepareFor* and validation options depend on unexported helpers (a
// job's generated selector, its status validation options): the v1
// object is converted to the internal type, the strategy's method runs on
// that, and, for PrepareFor*, the result is converted back into the v1
// object. Validation also runs the kind's declarative validation with the
// strategy's own DeclarativeValidationConfig, as rest.ValidateCreate and
// ValidateUpdate do.

import (
	"context"

	"k8s.io/apimachinery/pkg/api/operation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
)

// restStrategy is the part of an upstream create and update strategy
// (rest.RESTCreateStrategy, rest.RESTUpdateStrategy) kubesim calls; its
// methods take internal objects.
type restStrategy interface {
	PrepareForCreate(ctx context.Context, obj runtime.Object)
	PrepareForUpdate(ctx context.Context, obj, old runtime.Object)
	Validate(ctx context.Context, obj runtime.Object) field.ErrorList
	ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList
	WarningsOnCreate(ctx context.Context, obj runtime.Object) []string
	WarningsOnUpdate(ctx context.Context, obj, old runtime.Object) []string
	AllowCreateOnUpdate(ctx context.Context) bool
	AllowUnconditionalUpdate(ctx context.Context) bool
}

// upstreamStrategy returns the Strategy of a v1 kind (*V) that runs s, an
// upstream strategy of its internal type (*I), through the conversions
// to and from. subresource names the endpoint ("status"; "" for the
// resource itself) for declarative validation.
func upstreamStrategy[V, I any](s restStrategy, subresource string, to convertFunc[V, I], from convertFunc[I, V]) Strategy {
	return Strategy{
		PrepareForCreate: func(obj runtime.Object) {
			inPlace(obj, to, from, func(in *I) { s.PrepareForCreate(context.Background(), any(in).(runtime.Object)) })
		},
		PrepareForUpdate: func(obj, old runtime.Object) {
			oldIn, errs := toInternal(old, to)
			if errs != nil {
				return
			}
			inPlace(obj, to, from, func(in *I) {
				s.PrepareForUpdate(context.Background(), any(in).(runtime.Object), any(oldIn).(runtime.Object))
			})
		},
		Validate: func(obj runtime.Object) field.ErrorList {
			in, errs := toInternal(obj, to)
			if errs != nil {
				return errs
			}
			ctx := requestContext(obj, subresource)
			return strategyDeclarative(ctx, s, any(in).(runtime.Object), nil, s.Validate(ctx, any(in).(runtime.Object)), operation.Create)
		},
		ValidateUpdate: func(obj, old runtime.Object) field.ErrorList {
			in, errs := toInternal(obj, to)
			if errs != nil {
				return errs
			}
			oldIn, errs := toInternal(old, to)
			if errs != nil {
				return errs
			}
			ctx := requestContext(obj, subresource)
			newObj, oldObj := any(in).(runtime.Object), any(oldIn).(runtime.Object)
			return strategyDeclarative(ctx, s, newObj, oldObj, s.ValidateUpdate(ctx, newObj, oldObj), operation.Update)
		},
		WarningsOnCreate: upstreamWarnings(to, func(ctx context.Context, in *I) []string {
			return s.WarningsOnCreate(ctx, any(in).(runtime.Object))
		}),
		WarningsOnUpdate: upstreamWarningsOnUpdate(to, func(ctx context.Context, in, old *I) []string {
			return s.WarningsOnUpdate(ctx, any(in).(runtime.Object), any(old).(runtime.Object))
		}),
		AllowCreateOnUpdate:      s.AllowCreateOnUpdate(context.Background()),
		AllowUnconditionalUpdate: s.AllowUnconditionalUpdate(context.Background()),
	}
}

// inPlace converts obj (a *V) to the internal type, runs change on it and
// converts the result back into obj, keeping obj's apiVersion and kind. An
// object that does not convert is left alone: its validation reports why.
func inPlace[V, I any](obj runtime.Object, to convertFunc[V, I], from convertFunc[I, V], change func(*I)) {
	in, errs := toInternal(obj, to)
	if errs != nil {
		return
	}
	change(in)
	out := new(V)
	if from(in, out, nil) != nil {
		return
	}
	gvk := obj.GetObjectKind().GroupVersionKind()
	*any(obj).(*V) = *out
	obj.GetObjectKind().SetGroupVersionKind(gvk)
}

// requestContext is the context of a request for obj's group-version
// (its Go type's, as legacyscheme knows it) and subresource, as
// declarative validation and version-dependent strategies read it.
func requestContext(obj runtime.Object, subresource string) context.Context {
	info := &genericapirequest.RequestInfo{Subresource: subresource}
	if gvks, _, err := legacyscheme.Scheme.ObjectKinds(obj); err == nil && len(gvks) > 0 {
		info.APIGroup, info.APIVersion = gvks[0].Group, gvks[0].Version
	}
	return genericapirequest.WithRequestInfo(context.Background(), info)
}

// strategyDeclarative merges errs, those of s's hand-written validation,
// with the declarative validation of in (oldIn: the stored object on an
// update), configured as s configures it.
func strategyDeclarative(ctx context.Context, s restStrategy, in, oldIn runtime.Object, errs field.ErrorList, op operation.Type) field.ErrorList {
	var config rest.DeclarativeValidationConfig
	if dv, ok := s.(rest.DeclarativeValidationStrategy); ok {
		config = dv.DeclarativeValidationConfig(ctx, in, oldIn)
	}
	return rest.ValidateDeclarativelyWithMigrationChecks(ctx, legacyscheme.Scheme, in, oldIn, errs, op, config)
}
