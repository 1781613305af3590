package admission

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
)

// ServiceAccountName is the ServiceAccount plugin's name.
const ServiceAccountName = "ServiceAccount"

// The ServiceAccount plugin's constants, as upstream's.
const (
	// DefaultServiceAccountName is the account of a pod that names none.
	DefaultServiceAccountName = "default"
	// ServiceAccountVolumeName prefixes the name of the projected volume
	// that holds the token ("kube-api-access-" and 5 random characters).
	ServiceAccountVolumeName = "kube-api-access"
	// DefaultAPITokenMountPath is where every container finds the token,
	// ca.crt and namespace.
	DefaultAPITokenMountPath = "/var/run/secrets/kubernetes.io/serviceaccount"
	// EnforceMountableSecretsAnnotation on a ServiceAccount, set to
	// "true", limits its pods to the secrets it lists.
	EnforceMountableSecretsAnnotation = "kubernetes.io/enforce-mountable-secrets"
	// defaultAccountLookups is how many times a pod naming the default
	// account looks it up in storage before it is rejected: the
	// service-account-controller makes it just after its namespace
	// (another account is looked up once).
	defaultAccountLookups = 10
)

var serviceAccountsResource = corev1.Resource("serviceaccount")

// ServiceAccountGetter finds service accounts; both methods return an
// error for which apierrors.IsNotFound is true when there is none.
// Cached may answer from a cache that lags behind storage (upstream's
// informer lister); Live reads storage.
type ServiceAccountGetter interface {
	CachedServiceAccount(ctx context.Context, namespace, name string) (*corev1.ServiceAccount, error)
	LiveServiceAccount(ctx context.Context, namespace, name string) (*corev1.ServiceAccount, error)
}

// ServiceAccount is kube-apiserver's ServiceAccount admission plugin, a
// mutating and a validating one. On a pod's create it sets
// spec.serviceAccountName to "default" when empty, rejects the pod if
// its account does not exist, mounts the projected token volume
// kube-api-access-<random> in every container and init container
// (unless automountServiceAccountToken is false on the pod, or else on
// the account) and copies the account's imagePullSecrets to a pod that
// has none. Mirror pods are not changed and may reference neither
// service accounts nor secrets nor token projections. An account with
// the annotation kubernetes.io/enforce-mountable-secrets=true limits its
// pods (and their ephemeral containers, on an update of
// pods/ephemeralcontainers) to the secrets it lists. Other requests are
// not its business. Use NewServiceAccount; it is safe for concurrent use.
type ServiceAccount struct {
	accounts ServiceAccountGetter
	// generateName makes the volume's name from its prefix.
	generateName func(prefix string) string
	// retryInterval is the pause between live lookups of the default
	// account.
	retryInterval func() time.Duration
}

var (
	_ MutatingPlugin   = (*ServiceAccount)(nil)
	_ ValidatingPlugin = (*ServiceAccount)(nil)
)

// NewServiceAccount returns the plugin, looking accounts up in accounts:
// in the cache first, then, if the cache does not have it, in storage
// (ten times for the default account, 100 to 200ms apart, as upstream).
func NewServiceAccount(accounts ServiceAccountGetter) *ServiceAccount {
	return &ServiceAccount{
		accounts:      accounts,
		generateName:  func(prefix string) string { return prefix + utilrand.String(5) },
		retryInterval: func() time.Duration { return time.Duration(100+rand.N(100)) * time.Millisecond },
	}
}

// Name returns "ServiceAccount".
func (*ServiceAccount) Name() string { return ServiceAccountName }

// Handles reports whether upstream's ServiceAccount handles op (creates and updates).
func (*ServiceAccount) Handles(op Operation) bool { return handles(op, Create, Update) }

// podOf returns the pod of a request the plugin looks at: pods and
// pods/ephemeralcontainers with a Pod object.
func podOf(a *Attributes) (*corev1.Pod, bool) {
	if a.Resource.GroupResource() != podsResource || (a.Subresource != "" && a.Subresource != "ephemeralcontainers") {
		return nil, false
	}
	pod, ok := a.Object.(*corev1.Pod)
	return pod, ok && pod != nil
}

func isMirrorPod(pod *corev1.Pod) bool {
	_, ok := pod.Annotations[corev1.MirrorPodAnnotationKey]
	return ok
}

// Admit mutates a pod being created, then checks it as Validate does
// (upstream's Admit ends with its Validate). Fields look like
// "spec.serviceAccountName=default".
func (s *ServiceAccount) Admit(ctx context.Context, a *Attributes) ([]string, bool, error) {
	pod, ok := podOf(a)
	if !ok || a.Operation != Create || a.Subresource != "" {
		return nil, false, nil
	}
	if isMirrorPod(pod) {
		return nil, true, s.validate(ctx, a, pod)
	}
	var fields []string
	if pod.Spec.ServiceAccountName == "" {
		pod.Spec.ServiceAccountName = DefaultServiceAccountName
		pod.Spec.DeprecatedServiceAccount = DefaultServiceAccountName //nolint:staticcheck // kept in step, as upstream
		fields = append(fields, "spec.serviceAccountName="+DefaultServiceAccountName)
	}
	sa, err := s.lookUp(ctx, a, pod.Spec.ServiceAccountName)
	if err != nil {
		return fields, true, err
	}
	if shouldAutomount(sa, pod) {
		fields = append(fields, s.mountServiceAccountToken(pod)...)
	}
	if len(pod.Spec.ImagePullSecrets) == 0 && len(sa.ImagePullSecrets) > 0 {
		for _, ref := range sa.ImagePullSecrets {
			pod.Spec.ImagePullSecrets = append(pod.Spec.ImagePullSecrets, corev1.LocalObjectReference{Name: ref.Name})
			fields = append(fields, "spec.imagePullSecrets[+]="+ref.Name)
		}
	}
	return fields, true, s.validate(ctx, a, pod)
}

// Validate checks a pod being created: a mirror pod references no
// service account, secret or token projection; any other pod names an
// account that exists (403 `pods "p" is forbidden: error looking up
// service account default/default: serviceaccount "default" not
// found`), and only secrets it allows if it enforces mountable secrets.
// On an update of pods/ephemeralcontainers it checks the ephemeral
// containers' secrets the same way.
func (s *ServiceAccount) Validate(ctx context.Context, a *Attributes) (bool, error) {
	pod, ok := podOf(a)
	if !ok {
		return false, nil
	}
	if a.Operation == Update && a.Subresource == "ephemeralcontainers" {
		return true, s.validateEphemeral(ctx, a, pod)
	}
	if a.Operation != Create || a.Subresource != "" {
		return false, nil
	}
	return true, s.validate(ctx, a, pod)
}

func (s *ServiceAccount) validate(ctx context.Context, a *Attributes, pod *corev1.Pod) error {
	if isMirrorPod(pod) {
		return validateMirrorPod(a, pod)
	}
	if pod.Spec.ServiceAccountName == "" {
		return newForbidden(a, fmt.Errorf("no service account specified for pod %s/%s", a.Namespace, pod.Name))
	}
	sa, err := s.lookUp(ctx, a, pod.Spec.ServiceAccountName)
	if err != nil {
		return err
	}
	if enforcesMountableSecrets(sa) {
		if err := limitSecretReferences(sa, pod); err != nil {
			return newForbidden(a, err)
		}
	}
	return nil
}

func (s *ServiceAccount) validateEphemeral(ctx context.Context, a *Attributes, pod *corev1.Pod) error {
	if pod.Spec.ServiceAccountName == "" {
		return newForbidden(a, fmt.Errorf("no service account specified for pod %s/%s", a.Namespace, pod.Name))
	}
	sa, err := s.lookUp(ctx, a, pod.Spec.ServiceAccountName)
	if err != nil || !enforcesMountableSecrets(sa) {
		return err
	}
	if err := limitEphemeralSecretReferences(sa, pod); err != nil {
		return newForbidden(a, err)
	}
	return nil
}

// lookUp finds the account or returns the 403 upstream answers.
func (s *ServiceAccount) lookUp(ctx context.Context, a *Attributes, name string) (*corev1.ServiceAccount, error) {
	sa, err := s.getServiceAccount(ctx, a.Namespace, name)
	if err != nil {
		return nil, newForbidden(a, fmt.Errorf("error looking up service account %s/%s: %w", a.Namespace, name, err))
	}
	return sa, nil
}

// getServiceAccount reads the cache, then storage: once, or for the
// default account defaultAccountLookups times, retryInterval apart.
func (s *ServiceAccount) getServiceAccount(ctx context.Context, namespace, name string) (*corev1.ServiceAccount, error) {
	sa, err := s.accounts.CachedServiceAccount(ctx, namespace, name)
	if err == nil || !apierrors.IsNotFound(err) {
		return sa, err
	}
	attempts := 1
	if name == DefaultServiceAccountName {
		attempts = defaultAccountLookups
	}
	interval := s.retryInterval()
	for i := range attempts {
		if i > 0 {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(interval):
			}
		}
		sa, err := s.accounts.LiveServiceAccount(ctx, namespace, name)
		if err == nil || !apierrors.IsNotFound(err) {
			return sa, err
		}
	}
	return nil, apierrors.NewNotFound(serviceAccountsResource, name)
}

// shouldAutomount: the pod's automountServiceAccountToken wins, then the
// account's; the default is to mount.
func shouldAutomount(sa *corev1.ServiceAccount, pod *corev1.Pod) bool {
	if pod.Spec.AutomountServiceAccountToken != nil {
		return *pod.Spec.AutomountServiceAccountToken
	}
	if sa.AutomountServiceAccountToken != nil {
		return *sa.AutomountServiceAccountToken
	}
	return true
}

func enforcesMountableSecrets(sa *corev1.ServiceAccount) bool {
	v, ok := sa.Annotations[EnforceMountableSecretsAnnotation]
	if !ok {
		return false
	}
	enforce, _ := strconv.ParseBool(v)
	return enforce
}
