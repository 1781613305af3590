package main

// kind is one kind of object the kubectl captures cover: its manifests
// (files of manifests/) and what kubectl is asked about it.
type kind struct {
	// dir is the output directory of its captures, under kubectl/.
	dir string
	// resource is the resource as typed to kubectl.
	resource string
	// name is the object manifest creates.
	name string
	// manifest creates name; invalid is refused by the API server.
	manifest, invalid string
	// field is a nested field for kubectl explain, after resource.
	field string
	// ready, when set, is a kubectl wait condition name must reach
	// before anything is captured.
	ready string
}

// kinds are applied in this order: the CustomResourceDefinition first, its
// custom resource last.
var kinds = []kind{
	{
		dir: "customresourcedefinitions", resource: "customresourcedefinitions", name: "backups.golden.kubesim.io",
		manifest: "crd.yaml", invalid: "invalid-crd.yaml", field: "spec.versions.schema",
		ready: "condition=Established",
	},
	{
		dir: "pods", resource: "pods", name: "web",
		manifest: "pod.yaml", invalid: "invalid-pod.yaml", field: "spec.containers.ports",
		ready: "condition=Ready",
	},
	{
		dir: "deployments", resource: "deployments", name: "frontend",
		manifest: "deployment.yaml", invalid: "invalid-deployment.yaml", field: "spec.strategy.rollingUpdate",
		ready: "condition=Available",
	},
	{
		dir: "services", resource: "services", name: "frontend",
		manifest: "service.yaml", invalid: "invalid-service.yaml", field: "spec.ports",
	},
	{
		dir: "backups", resource: "backups", name: "nightly",
		manifest: "backup.yaml", invalid: "invalid-backup.yaml", field: "spec.keep",
	},
}
