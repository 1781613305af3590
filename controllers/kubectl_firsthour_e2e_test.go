package controllers_test

import (
	"context"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// TestKubectlFirstHour runs, with the real kubectl, the commands a class
// types in its first hour besides Deployments: configmaps, secrets, a
// service account token, who am I and what may I do, cluster-info, and a
// container's logs, current and after a crash. Each step checks kubectl's
// output (and, where kubectl only says "created", what the API stored).
func TestKubectlFirstHour(t *testing.T) {
	c, admin := startCluster(t)
	k := newKubectl(t, c)
	ctx := context.Background()

	t.Run("create configmap", func(t *testing.T) {
		k.mustPrint(t, "configmap/app-config created\n", "create", "configmap", "app-config", "--from-literal=color=blue")
		cm, err := admin.CoreV1().ConfigMaps("default").Get(ctx, "app-config", metav1.GetOptions{})
		if err != nil || cm.Data["color"] != "blue" {
			t.Fatalf("stored configmap: %v %v, want color=blue", cm.Data, err)
		}
	})
	t.Run("create secret generic", func(t *testing.T) {
		k.mustPrint(t, "secret/db-pass created\n", "create", "secret", "generic", "db-pass", "--from-literal=password=s3cret")
		s, err := admin.CoreV1().Secrets("default").Get(ctx, "db-pass", metav1.GetOptions{})
		if err != nil || s.Type != corev1.SecretTypeOpaque || string(s.Data["password"]) != "s3cret" {
			t.Fatalf("stored secret: %v, want an Opaque secret with password=s3cret", err)
		}
	})
	t.Run("create token default", func(t *testing.T) { checkCreateToken(t, k, c.Kubeconfig, admin) })
	t.Run("auth whoami", func(t *testing.T) {
		checkWhoami(t, k.must(t, "auth", "whoami"), "admin", "[system:masters system:authenticated]")
		checkWhoami(t, k.must(t, "auth", "whoami", "--as", "student"), "student", "[system:authenticated]")
	})
	t.Run("auth can-i --list --as student", func(t *testing.T) { checkCanIList(t, k) })
	t.Run("cluster-info", func(t *testing.T) {
		rc, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
		if err != nil {
			t.Fatal(err)
		}
		k.mustPrint(t, "Kubernetes control plane is running at "+rc.Host+"\n\n"+
			"To further debug and diagnose cluster problems, use 'kubectl cluster-info dump'.\n", "cluster-info")
	})
	t.Run("logs", func(t *testing.T) { checkLogs(t, k, admin) })
	t.Run("logs --previous", func(t *testing.T) { checkPreviousLogs(t, k, admin) })
}

// checkCreateToken: kubectl create token default prints a JWT for the
// default ServiceAccount (made by the serviceaccount controller), and the
// API server takes it as that account. Skipped while the manager runs no
// service-account-controller.
func checkCreateToken(t *testing.T, k *kubectl, kubeconfig string, admin kubernetes.Interface) {
	waitFor(t, "the controller manager to make its service accounts", func(ctx context.Context) (bool, error) {
		return controllerRuns(t, admin, "replicaset-controller"), nil
	})
	if !controllerRuns(t, admin, "service-account-controller") {
		t.Skip("the controller manager runs no service-account-controller yet")
	}
	waitFor(t, "the default ServiceAccount in default", func(ctx context.Context) (bool, error) {
		_, err := admin.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{})
		return err == nil, nil
	})
	token := strings.TrimSuffix(k.must(t, "create", "token", "default"), "\n")
	if strings.Count(token, ".") != 2 || strings.ContainsAny(token, " \n") {
		t.Fatalf("kubectl create token printed %q, want one JWT (three dot-separated parts)", token)
	}
	rc, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	rc = rest.AnonymousClientConfig(rc) // the token alone, no client certificate
	rc.BearerToken = token
	cs, err := kubernetes.NewForConfig(rc)
	if err != nil {
		t.Fatal(err)
	}
	review, err := cs.AuthenticationV1().SelfSubjectReviews().Create(context.Background(), &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil || review.Status.UserInfo.Username != "system:serviceaccount:default:default" {
		t.Fatalf("who the token is: %v %v, want system:serviceaccount:default:default", review, err)
	}
}

// checkWhoami checks kubectl auth whoami's table: the header, then the
// user name and groups.
func checkWhoami(t *testing.T, out, user, groups string) {
	t.Helper()
	rows := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(rows) < 3 || strings.Join(strings.Fields(rows[0]), " ") != "ATTRIBUTE VALUE" ||
		strings.Join(strings.Fields(rows[1]), " ") != "Username "+user ||
		strings.Join(strings.Fields(rows[2]), " ") != "Groups "+groups {
		t.Fatalf("kubectl auth whoami printed\n%s\nwant ATTRIBUTE VALUE, Username %s, Groups %s", out, user, groups)
	}
}

// checkCanIList: the student is bound to view, so may read pods and
// deployments, write nothing but the self reviews, and not read secrets.
func checkCanIList(t *testing.T, k *kubectl) {
	out := k.must(t, "auth", "can-i", "--list", "--as", "student")
	rules := map[string]string{} // resource → its verbs cell
	lines := strings.Split(out, "\n")
	if strings.Join(strings.Fields(lines[0]), " ") != "Resources Non-Resource URLs Resource Names Verbs" {
		t.Fatalf("header %q, want Resources Non-Resource URLs Resource Names Verbs", lines[0])
	}
	for _, line := range lines[1:] {
		// resource, [] (non-resource URLs), [] (names), [verb verb…]
		if f := strings.Fields(line); len(f) >= 4 && !strings.HasPrefix(f[0], "[") {
			rules[f[0]] = strings.Join(f[3:], " ")
		}
	}
	for resource, verbs := range map[string]string{
		"pods": "[get list watch]", "pods/log": "[get list watch]", "deployments.apps": "[get list watch]",
		"services": "[get list watch]", "selfsubjectreviews.authentication.k8s.io": "[create]",
		"selfsubjectrulesreviews.authorization.k8s.io": "[create]",
	} {
		if rules[resource] != verbs {
			t.Errorf("student's verbs on %s: %q, want %q", resource, rules[resource], verbs)
		}
	}
	if v, ok := rules["secrets"]; ok {
		t.Errorf("student may %s secrets; view does not read them", v)
	}
	if !strings.Contains(out, "[/healthz]") {
		t.Errorf("no non-resource URLs in\n%s", out)
	}
}

// checkLogs: a pod of nginx, made with kubectl run, logs what the fake
// runtime says its image prints at start.
func checkLogs(t *testing.T, k *kubectl, admin kubernetes.Interface) {
	k.mustPrint(t, "pod/web created\n", "run", "web", "--image=nginx")
	waitFor(t, "pod web Running", func(ctx context.Context) (bool, error) {
		p, err := admin.CoreV1().Pods("default").Get(ctx, "web", metav1.GetOptions{})
		return err == nil && p.Status.Phase == corev1.PodRunning, err
	})
	out := k.must(t, "logs", "web")
	for _, want := range []string{
		"kubesim: container web (image docker.io/library/nginx:latest) is simulated: no process runs",
		"/docker-entrypoint.sh: start-up scripts done; starting nginx\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("kubectl logs web printed\n%s\nwant %q in it", out, want)
		}
	}
}

// checkPreviousLogs: a container that exits with code 1 (the kubelet's
// exit-after annotation) is restarted; kubectl logs --previous shows the
// log of the run that crashed, ending in its exit.
func checkPreviousLogs(t *testing.T, k *kubectl, admin kubernetes.Interface) {
	k.mustPrint(t, "pod/crasher created\n", "run", "crasher", "--image=busybox",
		"--annotations=kubesim.io/exit-after=1s", "--annotations=kubesim.io/exit-code=1")
	waitFor(t, "crasher restarted after exiting with 1", func(ctx context.Context) (bool, error) {
		p, err := admin.CoreV1().Pods("default").Get(ctx, "crasher", metav1.GetOptions{})
		if err != nil || len(p.Status.ContainerStatuses) == 0 {
			return false, err
		}
		s := p.Status.ContainerStatuses[0]
		return s.RestartCount >= 1 && s.LastTerminationState.Terminated != nil && s.LastTerminationState.Terminated.ExitCode == 1, nil
	})
	out := k.must(t, "logs", "crasher", "--previous")
	want := "kubesim: container crasher exits with code 1, as kubesim.io/exit-after=1s says\n"
	if !strings.HasPrefix(out, "kubesim: container crasher (image docker.io/library/busybox:latest) is simulated") || !strings.HasSuffix(out, want) {
		t.Errorf("kubectl logs crasher --previous printed\n%s\nwant busybox's log ending in %q", out, want)
	}
}
