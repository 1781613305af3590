package admission_test

import (
	"context"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver/admission"
)

// accounts is a ServiceAccountGetter over two maps: what the cache has
// and what storage has. live counts the storage reads.
type accounts struct {
	cached, stored map[string]*corev1.ServiceAccount
	live           atomic.Int32
}

func (a *accounts) CachedServiceAccount(_ context.Context, ns, name string) (*corev1.ServiceAccount, error) {
	if sa, ok := a.cached[ns+"/"+name]; ok {
		return sa, nil
	}
	return nil, apierrors.NewNotFound(corev1.Resource("serviceaccounts"), name)
}

func (a *accounts) LiveServiceAccount(_ context.Context, ns, name string) (*corev1.ServiceAccount, error) {
	a.live.Add(1)
	if sa, ok := a.stored[ns+"/"+name]; ok {
		return sa, nil
	}
	return nil, apierrors.NewNotFound(corev1.Resource("serviceaccounts"), name)
}

func account(name string, mutate ...func(*corev1.ServiceAccount)) *corev1.ServiceAccount {
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}}
	for _, m := range mutate {
		m(sa)
	}
	return sa
}

func cachedAccounts(sas ...*corev1.ServiceAccount) *accounts {
	a := &accounts{cached: map[string]*corev1.ServiceAccount{}, stored: map[string]*corev1.ServiceAccount{}}
	for _, sa := range sas {
		a.cached[sa.Namespace+"/"+sa.Name], a.stored[sa.Namespace+"/"+sa.Name] = sa, sa
	}
	return a
}

func newServiceAccountPlugin(a admission.ServiceAccountGetter) *admission.ServiceAccount {
	p := admission.NewServiceAccount(a)
	admission.SetServiceAccountTestHooks(p, func(prefix string) string { return prefix + "abcde" })
	return p
}

func TestServiceAccountAdmitMountsTheToken(t *testing.T) {
	pod := simplePod("p")
	pod.Spec.InitContainers = []corev1.Container{{Name: "init", Image: "busybox"}}
	p := newServiceAccountPlugin(cachedAccounts(account("default")))
	fields, handled, err := p.Admit(context.Background(), podAttrs(admission.Create, "default", pod))
	if err != nil || !handled {
		t.Fatalf("Admit = %v, handled %v; want nil, true", err, handled)
	}
	wantFields := []string{
		"spec.serviceAccountName=default",
		"spec.volumes[+]=kube-api-access-abcde (projected: token 3607s, kube-root-ca.crt ca.crt, namespace)",
		"spec.initContainers[0].volumeMounts[+]=kube-api-access-abcde at /var/run/secrets/kubernetes.io/serviceaccount (read-only)",
		"spec.containers[0].volumeMounts[+]=kube-api-access-abcde at /var/run/secrets/kubernetes.io/serviceaccount (read-only)",
	}
	if !reflect.DeepEqual(fields, wantFields) {
		t.Errorf("fields = %q\nwant %q", fields, wantFields)
	}
	if pod.Spec.ServiceAccountName != "default" || pod.Spec.DeprecatedServiceAccount != "default" { //nolint:staticcheck
		t.Errorf("serviceAccountName %q, serviceAccount %q; want default for both", pod.Spec.ServiceAccountName, pod.Spec.DeprecatedServiceAccount) //nolint:staticcheck
	}
	wantMount := corev1.VolumeMount{Name: "kube-api-access-abcde", ReadOnly: true, MountPath: "/var/run/secrets/kubernetes.io/serviceaccount"}
	for _, c := range append(pod.Spec.InitContainers, pod.Spec.Containers...) {
		if len(c.VolumeMounts) != 1 || !reflect.DeepEqual(c.VolumeMounts[0], wantMount) {
			t.Errorf("container %s mounts %+v, want only %+v", c.Name, c.VolumeMounts, wantMount)
		}
	}
	checkTokenVolume(t, pod)
}

// checkTokenVolume checks the pod's one volume is upstream's projected
// token volume.
func checkTokenVolume(t *testing.T, pod *corev1.Pod) {
	t.Helper()
	if len(pod.Spec.Volumes) != 1 || pod.Spec.Volumes[0].Projected == nil {
		t.Fatalf("volumes = %+v, want one projected volume", pod.Spec.Volumes)
	}
	v := pod.Spec.Volumes[0]
	src := v.Projected.Sources
	switch {
	case v.Name != "kube-api-access-abcde":
		t.Errorf("volume name %q", v.Name)
	case v.Projected.DefaultMode == nil || *v.Projected.DefaultMode != 0o644:
		t.Errorf("defaultMode %v, want 0644", v.Projected.DefaultMode)
	case len(src) != 3:
		t.Fatalf("sources = %+v, want token, configMap, downwardAPI", src)
	case src[0].ServiceAccountToken == nil || src[0].ServiceAccountToken.Path != "token" || *src[0].ServiceAccountToken.ExpirationSeconds != 3607:
		t.Errorf("token source %+v", src[0].ServiceAccountToken)
	case src[1].ConfigMap == nil || src[1].ConfigMap.Name != "kube-root-ca.crt" ||
		!reflect.DeepEqual(src[1].ConfigMap.Items, []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}):
		t.Errorf("configMap source %+v", src[1].ConfigMap)
	case src[2].DownwardAPI == nil || len(src[2].DownwardAPI.Items) != 1 || src[2].DownwardAPI.Items[0].Path != "namespace" ||
		src[2].DownwardAPI.Items[0].FieldRef.FieldPath != "metadata.namespace" || src[2].DownwardAPI.Items[0].FieldRef.APIVersion != "v1":
		t.Errorf("downwardAPI source %+v", src[2].DownwardAPI)
	}
}

func TestServiceAccountAutomount(t *testing.T) {
	no, yes := false, true
	tests := []struct {
		name       string
		pod, sa    *bool
		wantVolume bool
	}{
		{"default mounts", nil, nil, true},
		{"account says no", nil, &no, false},
		{"pod says no", &no, nil, false},
		{"the pod wins over the account", &yes, &no, true},
		{"the pod's no wins too", &no, &yes, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := simplePod("p")
			pod.Spec.AutomountServiceAccountToken = tt.pod
			p := newServiceAccountPlugin(cachedAccounts(account("default", func(sa *corev1.ServiceAccount) { sa.AutomountServiceAccountToken = tt.sa })))
			if _, _, err := p.Admit(context.Background(), podAttrs(admission.Create, "default", pod)); err != nil {
				t.Fatal(err)
			}
			if got := len(pod.Spec.Volumes) == 1 && len(pod.Spec.Containers[0].VolumeMounts) == 1; got != tt.wantVolume {
				t.Errorf("mounted = %v, want %v (volumes %+v)", got, tt.wantVolume, pod.Spec.Volumes)
			}
		})
	}
}

func TestServiceAccountKeepsExistingMounts(t *testing.T) {
	pod := simplePod("p")
	pod.Spec.Containers = append(pod.Spec.Containers, corev1.Container{Name: "own", Image: "x",
		VolumeMounts: []corev1.VolumeMount{{Name: "mine", MountPath: "/var/run/secrets/kubernetes.io/serviceaccount"}}})
	p := newServiceAccountPlugin(cachedAccounts(account("default")))
	if _, _, err := p.Admit(context.Background(), podAttrs(admission.Create, "default", pod)); err != nil {
		t.Fatal(err)
	}
	if got := pod.Spec.Containers[1].VolumeMounts; len(got) != 1 || got[0].Name != "mine" {
		t.Errorf("a container with its own mount there got %+v", got)
	}
	if len(pod.Spec.Containers[0].VolumeMounts) != 1 || len(pod.Spec.Volumes) != 1 {
		t.Errorf("the other container should still get the token: mounts %+v, volumes %+v", pod.Spec.Containers[0].VolumeMounts, pod.Spec.Volumes)
	}

	// Every container mounting something there: no volume at all.
	pod = simplePod("q")
	pod.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "mine", MountPath: "/var/run/secrets/kubernetes.io/serviceaccount"}}
	if _, _, err := p.Admit(context.Background(), podAttrs(admission.Create, "default", pod)); err != nil {
		t.Fatal(err)
	}
	if len(pod.Spec.Volumes) != 0 {
		t.Errorf("volumes = %+v, want none", pod.Spec.Volumes)
	}
}

func TestServiceAccountCopiesImagePullSecrets(t *testing.T) {
	sa := account("builder", func(sa *corev1.ServiceAccount) {
		sa.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "registry"}}
	})
	pod := simplePod("p")
	pod.Spec.ServiceAccountName = "builder"
	if _, _, err := newServiceAccountPlugin(cachedAccounts(sa)).Admit(context.Background(), podAttrs(admission.Create, "default", pod)); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(pod.Spec.ImagePullSecrets, []corev1.LocalObjectReference{{Name: "registry"}}) {
		t.Errorf("imagePullSecrets = %+v", pod.Spec.ImagePullSecrets)
	}
}

func TestServiceAccountMissingAccount(t *testing.T) {
	tests := []struct {
		name      string
		account   string
		wantLive  int32
		wantError string
	}{
		{"the default account is looked up ten times", "", 10,
			`pods "p" is forbidden: error looking up service account default/default: serviceaccount "default" not found`},
		{"another account once", "builder", 1,
			`pods "p" is forbidden: error looking up service account default/builder: serviceaccount "builder" not found`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := cachedAccounts()
			p := newServiceAccountPlugin(a)
			pod := simplePod("p")
			pod.Spec.ServiceAccountName = tt.account
			_, handled, err := p.Admit(context.Background(), podAttrs(admission.Create, "default", pod))
			if !handled {
				t.Error("handled = false")
			}
			checkErr(t, err, forbidden(tt.wantError))
			if got := a.live.Load(); got != tt.wantLive {
				t.Errorf("storage read %d times, want %d", got, tt.wantLive)
			}
		})
	}
}

func TestServiceAccountFoundInStorage(t *testing.T) {
	a := cachedAccounts()
	a.stored["default/default"] = account("default")
	pod := simplePod("p")
	if _, _, err := newServiceAccountPlugin(a).Admit(context.Background(), podAttrs(admission.Create, "default", pod)); err != nil {
		t.Fatalf("an account only storage has yet: %v", err)
	}
	if len(pod.Spec.Volumes) != 1 {
		t.Errorf("volumes = %+v", pod.Spec.Volumes)
	}
}

func TestServiceAccountMirrorPods(t *testing.T) {
	token := corev1.Volume{Name: "t", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
		Sources: []corev1.VolumeProjection{{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token"}}}}}}
	secretVolume := corev1.Volume{Name: "s", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "x"}}}
	tests := []struct {
		name   string
		mutate func(*corev1.Pod)
		want   wantErr
	}{
		{"left alone", func(*corev1.Pod) {}, wantErr{}},
		{"naming an account", func(p *corev1.Pod) { p.Spec.ServiceAccountName = "default" },
			forbidden(`pods "m" is forbidden: a mirror pod may not reference service accounts`)},
		{"a secret volume", func(p *corev1.Pod) { p.Spec.Volumes = []corev1.Volume{secretVolume} },
			forbidden(`pods "m" is forbidden: a mirror pod may not reference secrets`)},
		{"a secret in env", func(p *corev1.Pod) {
			p.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "E", ValueFrom: &corev1.EnvVarSource{
				SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "x"}, Key: "k"}}}}
		}, forbidden(`pods "m" is forbidden: a mirror pod may not reference secrets`)},
		{"a token projection", func(p *corev1.Pod) { p.Spec.Volumes = []corev1.Volume{token} },
			forbidden(`pods "m" is forbidden: a mirror pod may not use ServiceAccountToken volume projections`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := simplePod("m")
			pod.Annotations = map[string]string{corev1.MirrorPodAnnotationKey: "hash"}
			tt.mutate(pod)
			before := pod.DeepCopy()
			p := newServiceAccountPlugin(cachedAccounts())
			fields, _, err := p.Admit(context.Background(), podAttrs(admission.Create, "default", pod))
			checkErr(t, err, tt.want)
			if len(fields) > 0 || !reflect.DeepEqual(pod, before) {
				t.Errorf("a mirror pod was changed: fields %q", fields)
			}
			_, err = p.Validate(context.Background(), podAttrs(admission.Create, "default", pod))
			checkErr(t, err, tt.want)
		})
	}
}

func TestServiceAccountValidate(t *testing.T) {
	enforcing := account("locked", func(sa *corev1.ServiceAccount) {
		sa.Annotations = map[string]string{admission.EnforceMountableSecretsAnnotation: "true"}
		sa.Secrets = []corev1.ObjectReference{{Name: "allowed"}}
	})
	secretEnv := func(secret string) []corev1.EnvVar {
		return []corev1.EnvVar{{Name: "PASSWORD", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: secret}, Key: "k"}}}}
	}
	tests := []struct {
		name   string
		mutate func(*corev1.Pod)
		want   wantErr
	}{
		{"no account named", func(p *corev1.Pod) { p.Spec.ServiceAccountName = "" },
			forbidden(`pods "p" is forbidden: no service account specified for pod default/p`)},
		{"an allowed secret", func(p *corev1.Pod) { p.Spec.Containers[0].Env = secretEnv("allowed") }, wantErr{}},
		{"a secret the account does not list", func(p *corev1.Pod) { p.Spec.Containers[0].Env = secretEnv("other") },
			forbidden(`pods "p" is forbidden: container c with envVar PASSWORD referencing secret.secretName="other" is not allowed because service account locked does not reference that secret`)},
		{"a secret volume it does not list", func(p *corev1.Pod) {
			p.Spec.Volumes = []corev1.Volume{{Name: "s", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "other"}}}}
		}, forbidden(`pods "p" is forbidden: volume with secret.secretName="other" is not allowed because service account locked does not reference that secret`)},
		{"a pull secret it does not list", func(p *corev1.Pod) { p.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "reg"}} },
			forbidden(`pods "p" is forbidden: imagePullSecrets[0].name="reg" is not allowed because service account locked does not reference that imagePullSecret`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := simplePod("p")
			pod.Spec.ServiceAccountName = "locked"
			tt.mutate(pod)
			_, err := newServiceAccountPlugin(cachedAccounts(enforcing)).Validate(context.Background(), podAttrs(admission.Create, "default", pod))
			checkErr(t, err, tt.want)
		})
	}
}

func TestServiceAccountEphemeralContainers(t *testing.T) {
	enforcing := account("locked", func(sa *corev1.ServiceAccount) {
		sa.Annotations = map[string]string{admission.EnforceMountableSecretsAnnotation: "true"}
	})
	pod := simplePod("p")
	pod.Spec.ServiceAccountName = "locked"
	pod.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{
		Name: "debug", Image: "busybox",
		EnvFrom: []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "other"}}}}}}}
	a := podAttrs(admission.Update, "default", pod)
	a.Subresource = "ephemeralcontainers"
	handled, err := newServiceAccountPlugin(cachedAccounts(enforcing)).Validate(context.Background(), a)
	if !handled {
		t.Error("handled = false")
	}
	checkErr(t, err, forbidden(`pods "p" is forbidden: ephemeral container debug with envFrom referencing secret.secretName="other" is not allowed because service account locked does not reference that secret`))
}

func TestServiceAccountSkips(t *testing.T) {
	p := newServiceAccountPlugin(cachedAccounts())
	status := podAttrs(admission.Create, "default", simplePod("p"))
	status.Subresource = "status"
	update := podAttrs(admission.Update, "default", simplePod("p"))
	node := &admission.Attributes{Operation: admission.Create, Kind: nodeGVK, Resource: nodesGVR, Name: "n", Object: &corev1.Node{}}
	for name, a := range map[string]*admission.Attributes{"pods/status": status, "a pod update": update, "a node": node} {
		fields, handled, err := p.Admit(context.Background(), a)
		if handled || err != nil || fields != nil {
			t.Errorf("Admit(%s) = %q, %v, %v; want skipped", name, fields, handled, err)
		}
		if handled, err := p.Validate(context.Background(), a); handled || err != nil {
			t.Errorf("Validate(%s) = %v, %v; want skipped", name, handled, err)
		}
	}
}

func TestServiceAccountVolumeNameIsRandom(t *testing.T) {
	p := admission.NewServiceAccount(cachedAccounts(account("default")))
	pod := simplePod("p")
	if _, _, err := p.Admit(context.Background(), podAttrs(admission.Create, "default", pod)); err != nil {
		t.Fatal(err)
	}
	name := pod.Spec.Volumes[0].Name
	suffix, ok := strings.CutPrefix(name, "kube-api-access-")
	if !ok || len(suffix) != 5 {
		t.Errorf("volume name %q, want kube-api-access- and 5 characters", name)
	}
}

// TestNamespaceLifecycleBeforeServiceAccount: in the mutating phase, as
// in kube-apiserver, NamespaceLifecycle answers a pod in a missing
// namespace with the namespace's 404 before ServiceAccount looks for an
// account there.
func TestNamespaceLifecycleBeforeServiceAccount(t *testing.T) {
	a := cachedAccounts()
	lifecycle := admission.NewNamespaceLifecycle(&fakeNamespaces{phases: map[string]corev1.NamespacePhase{"default": corev1.NamespaceActive}})
	chain := &admission.Chain{Mutating: []admission.MutatingPlugin{lifecycle, newServiceAccountPlugin(a)}}
	pod := simplePod("lost")
	outcomes, err := chain.Admit(context.Background(), podAttrs(admission.Create, "nope", pod))
	checkErr(t, err, wantErr{404, metav1.StatusReasonNotFound, `namespaces "nope" not found`})
	if len(outcomes) != 1 || outcomes[0].Plugin != admission.NamespaceLifecycleName {
		t.Errorf("outcomes = %+v, want NamespaceLifecycle's alone", outcomes)
	}
	if n := a.live.Load(); n != 0 {
		t.Errorf("service accounts read %d times, want none", n)
	}
}
