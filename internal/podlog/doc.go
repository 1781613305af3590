// Package podlog reads and checks the options of a container log request
// (core/v1 PodLogOptions) from a URL query, as both ends of kubectl logs
// see them: the API server's pods/<name>/log and the kubelet's
// /containerLogs/<namespace>/<pod>/<container>. It imports no component.
package podlog
