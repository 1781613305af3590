package main

// The URLs of storage's, quota's and scheduling's resources.
const (
	storageClasses  = "/apis/storage.k8s.io/v1/storageclasses"
	volumes         = "/api/v1/persistentvolumes"
	claims          = "/api/v1/namespaces/{ns}/persistentvolumeclaims"
	quotas          = "/api/v1/namespaces/{ns}/resourcequotas"
	limitRanges     = "/api/v1/namespaces/{ns}/limitranges"
	priorityClasses = "/apis/scheduling.k8s.io/v1/priorityclasses"
)

// controlled is why an object's status is left out: kubesim's
// controllers (the volume binder, the quota controller) write it, the
// peer runs no controller manager.
const controlled = "kubesim's controllers write the status; the peer runs no controller manager"

// storagePolicyRequests are storage.k8s.io's classes, volumes and claims,
// quotas, limit ranges and priority classes.
var storagePolicyRequests = []request{
	{name: "storageclass-create", method: "POST", path: storageClasses,
		body:   `{"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"name":"diff-{id}-sc","labels":{"diff":"yes"}},"provisioner":"example.com/diff"}`,
		values: []string{"reclaimPolicy", "volumeBindingMode", "provisioner"}},
	{name: "storageclass-create-invalid", method: "POST", path: storageClasses,
		body: `{"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"name":"diff-{id}-bad"},"provisioner":"","reclaimPolicy":"Keep"}`},
	{name: "storageclass-update-provisioner", method: "PATCH", path: storageClasses + "/diff-{id}-sc", ctype: "application/merge-patch+json",
		body: `{"provisioner":"example.com/other"}`},
	{name: "pv-create", method: "POST", path: volumes,
		body:   `{"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":"diff-{id}-pv","labels":{"diff":"yes"}},"spec":{"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],"storageClassName":"diff-{id}-sc","hostPath":{"path":"/tmp/diff"}}}`,
		values: []string{"spec.persistentVolumeReclaimPolicy", "spec.volumeMode", "status.phase", "metadata.finalizers"}},
	{name: "pv-create-invalid", method: "POST", path: volumes,
		body: `{"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":"diff-{id}-pv2"},"spec":{"accessModes":["ReadWriteOnce"],"hostPath":{"path":"/tmp/diff"}}}`},
	{name: "pvc-create", method: "POST", path: claims,
		body:   `{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"c1","labels":{"diff":"yes"}},"spec":{"storageClassName":"diff-{id}-sc","accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}`,
		values: []string{"spec.volumeMode", "status.phase", "metadata.finalizers"}},
	{name: "pvc-update-storageclass", method: "PATCH", path: claims + "/c1", ctype: "application/merge-patch+json",
		body: `{"spec":{"storageClassName":"other"}}`, ignore: map[string]string{"status": controlled}},
	{name: "pvc-delete", method: "DELETE", path: claims + "/c1", values: []string{"metadata.finalizers"},
		ignore: map[string]string{"status": controlled, "metadata.annotations": controlled}},
	{name: "pv-delete", method: "DELETE", path: volumes + "/diff-{id}-pv", values: []string{"metadata.finalizers"},
		ignore: map[string]string{"status": controlled, "spec.claimRef": controlled, "metadata.annotations": controlled}},
	{name: "storageclass-delete", method: "DELETE", path: storageClasses + "/diff-{id}-sc"},

	{name: "resourcequota-create", method: "POST", path: quotas,
		body:   `{"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"q1","labels":{"diff":"yes"}},"spec":{"hard":{"pods":"20","requests.cpu":"10"}}}`,
		values: []string{"spec.hard.pods"}, ignore: map[string]string{"status": controlled}},
	{name: "resourcequota-create-invalid", method: "POST", path: quotas,
		body: `{"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"q2"},"spec":{"hard":{"pods":"-1"}}}`},
	{name: "limitrange-create", method: "POST", path: limitRanges,
		body:   `{"apiVersion":"v1","kind":"LimitRange","metadata":{"name":"lr1","labels":{"diff":"yes"}},"spec":{"limits":[{"type":"Container","defaultRequest":{"cpu":"100m"},"default":{"cpu":"200m"}}]}}`,
		values: []string{"spec.limits[].type"}},
	{name: "limitrange-create-invalid", method: "POST", path: limitRanges,
		body: `{"apiVersion":"v1","kind":"LimitRange","metadata":{"name":"lr2"},"spec":{"limits":[{"type":"Container","min":{"cpu":"2"},"max":{"cpu":"1"}}]}}`},
	{name: "pod-create-limitrange-defaults", method: "POST", path: "/api/v1/namespaces/{ns}/pods",
		body:   `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"limited","labels":{"diff":"yes"}},"spec":{"containers":[{"name":"c","image":"busybox"}]}}`,
		values: []string{"spec.containers[].resources.requests.cpu", "spec.containers[].resources.limits.cpu", "metadata.annotations"}},
	{name: "pod-delete-limited", method: "DELETE", path: "/api/v1/namespaces/{ns}/pods/limited?gracePeriodSeconds=0", codeOnly: true},
	{name: "limitrange-delete", method: "DELETE", path: limitRanges + "/lr1"},
	{name: "resourcequota-delete", method: "DELETE", path: quotas + "/q1", ignore: map[string]string{"status": controlled}},

	{name: "priorityclass-get-system", path: priorityClasses + "/system-node-critical", values: []string{"value", "description"}},
	{name: "priorityclass-create", method: "POST", path: priorityClasses,
		body:   `{"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"diff-{id}-pc","labels":{"diff":"yes"}},"value":1000}`,
		values: []string{"value", "preemptionPolicy"}},
	{name: "priorityclass-create-system-prefix", method: "POST", path: priorityClasses,
		body: `{"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"system-diff-{id}"},"value":1000}`},
	{name: "priorityclass-create-too-high", method: "POST", path: priorityClasses,
		body: `{"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"diff-{id}-high"},"value":2000000001}`},
	{name: "priorityclass-update-value", method: "PATCH", path: priorityClasses + "/diff-{id}-pc", ctype: "application/merge-patch+json",
		body: `{"value":5}`},
	{name: "pod-create-unknown-priorityclass", method: "POST", path: "/api/v1/namespaces/{ns}/pods",
		body: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"prio"},"spec":{"priorityClassName":"diff-none","containers":[{"name":"c","image":"busybox"}]}}`},
	{name: "priorityclass-delete-system", method: "DELETE", path: priorityClasses + "/system-cluster-critical"},
	{name: "priorityclass-delete", method: "DELETE", path: priorityClasses + "/diff-{id}-pc"},
}
