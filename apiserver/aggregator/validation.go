package aggregator

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/validate/content"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	apiregv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// Bounds of an APIService's priorities, as upstream validates them.
const (
	maxGroupPriorityMinimum = 20000
	maxVersionPriority      = 1000
)

// ValidateName checks an APIService's name as a path segment; that it is
// "<spec.version>.<spec.group>" needs the spec and is ValidateAPIService's.
func ValidateName(name string, prefix bool) []string {
	if prefix {
		return content.IsPathSegmentPrefix(name)
	}
	return content.IsPathSegmentName(name)
}

// ValidateAPIService reports what upstream's ValidateAPIService reports of
// a (create or update): the name must be spec.version + "." + spec.group;
// only v1 may have an empty group; group a DNS subdomain, version a DNS
// label; groupPriorityMinimum in 1..20000 and versionPriority in 1..1000;
// a local APIService (no service) has neither caBundle nor
// insecureSkipTLSVerify; a service needs a namespace, a name and a valid
// port, and insecureSkipTLSVerify excludes a caBundle. Defaults (port
// 443) are applied before, by Default.
func ValidateAPIService(a *apiregv1.APIService) field.ErrorList {
	var errs field.ErrorList
	spec := field.NewPath("spec")
	if want := a.Spec.Version + "." + a.Spec.Group; a.Name != want && len(content.IsPathSegmentName(a.Name)) == 0 {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), a.Name, fmt.Sprintf("must be `spec.version+\".\"+spec.group`: %q", want)))
	}
	if a.Spec.Group == "" && a.Spec.Version != "v1" {
		errs = append(errs, field.Required(spec.Child("group"), "only v1 may have an empty group and it better be legacy kube"))
	}
	if a.Spec.Group != "" {
		for _, msg := range utilvalidation.IsDNS1123Subdomain(a.Spec.Group) {
			errs = append(errs, field.Invalid(spec.Child("group"), a.Spec.Group, msg))
		}
	}
	for _, msg := range utilvalidation.IsDNS1035Label(a.Spec.Version) {
		errs = append(errs, field.Invalid(spec.Child("version"), a.Spec.Version, msg))
	}
	if p := a.Spec.GroupPriorityMinimum; p <= 0 || p > maxGroupPriorityMinimum {
		errs = append(errs, field.Invalid(spec.Child("groupPriorityMinimum"), p, "must be positive and less than 20000"))
	}
	if p := a.Spec.VersionPriority; p <= 0 || p > maxVersionPriority {
		errs = append(errs, field.Invalid(spec.Child("versionPriority"), p, "must be positive and less than 1000"))
	}
	return append(errs, validateService(a.Spec, spec)...)
}

// validateService checks spec.service, caBundle and insecureSkipTLSVerify.
func validateService(s apiregv1.APIServiceSpec, spec *field.Path) field.ErrorList {
	var errs field.ErrorList
	if s.Service == nil {
		if len(s.CABundle) != 0 {
			errs = append(errs, field.Invalid(spec.Child("caBundle"), fmt.Sprintf("%d bytes", len(s.CABundle)), "local APIServices may not have a caBundle"))
		}
		if s.InsecureSkipTLSVerify {
			errs = append(errs, field.Invalid(spec.Child("insecureSkipTLSVerify"), s.InsecureSkipTLSVerify, "local APIServices may not have insecureSkipTLSVerify"))
		}
		return errs
	}
	svc := spec.Child("service")
	if s.Service.Namespace == "" {
		errs = append(errs, field.Required(svc.Child("namespace"), ""))
	}
	if s.Service.Name == "" {
		errs = append(errs, field.Required(svc.Child("name"), ""))
	}
	port := int32(0)
	if s.Service.Port != nil {
		port = *s.Service.Port
	}
	if msgs := utilvalidation.IsValidPortNum(int(port)); msgs != nil {
		errs = append(errs, field.Invalid(svc.Child("port"), port, "port is not valid: "+strings.Join(msgs, ", ")))
	}
	if s.InsecureSkipTLSVerify && len(s.CABundle) > 0 {
		errs = append(errs, field.Invalid(spec.Child("insecureSkipTLSVerify"), s.InsecureSkipTLSVerify, "may not be true if caBundle is present"))
	}
	return errs
}

// ValidateAPIServiceStatus checks a status update: every condition's
// status is True, False or Unknown.
func ValidateAPIServiceStatus(a *apiregv1.APIService) field.ErrorList {
	var errs field.ErrorList
	conds := field.NewPath("status", "conditions")
	for i, c := range a.Status.Conditions {
		switch c.Status {
		case apiregv1.ConditionTrue, apiregv1.ConditionFalse, apiregv1.ConditionUnknown:
		default:
			errs = append(errs, field.NotSupported(conds.Index(i).Child("status"), c.Status,
				[]string{string(apiregv1.ConditionTrue), string(apiregv1.ConditionFalse), string(apiregv1.ConditionUnknown)}))
		}
	}
	return errs
}

// Default applies the defaults of apiregistration.k8s.io/v1: a service
// without a port gets 443.
func Default(a *apiregv1.APIService) []string {
	if a.Spec.Service != nil && a.Spec.Service.Port == nil {
		port := int32(443)
		a.Spec.Service.Port = &port
		return []string{"spec.service.port=443"}
	}
	return nil
}
