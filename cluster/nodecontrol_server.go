package cluster

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// ControlSocket is the file name, in a running cluster's data dir, of
// its control endpoint: a unix socket that `kubesim node` talks to
// (ControlClient), made by Start and removed by Close.
const ControlSocket = "control.sock"

// maxSocketPath is the longest path a unix socket may have on Linux
// (sun_path is 108 bytes with its terminating NUL).
const maxSocketPath = 107

// The control endpoint's routes. The answers are JSON: a NodeKubelet, a
// list of them, or a controlError with status 404 (unknown node), 409
// (the kubelet is already in that state) or 500.
const (
	controlNodesPath = "/v1/nodes"
	controlStopPath  = "/v1/nodes/{name}/stop"
	controlStartPath = "/v1/nodes/{name}/start"
)

// ControlSocketPath is the path of the control socket of the cluster
// whose data dir is dataDir.
func ControlSocketPath(dataDir string) string { return filepath.Join(dataDir, ControlSocket) }

// serveControl makes the cluster answer on its control endpoint, the
// unix socket ControlSocketPath(DataDir) (mode 0600, in the 0700 data
// dir), until it closes; Close removes the socket. Start calls it once.
// A socket left by a kubesim that was killed is replaced: the data dir's
// lock says no other cluster uses it.
func (c *Cluster) serveControl() error {
	path := ControlSocketPath(c.DataDir)
	if len(path) > maxSocketPath {
		return fmt.Errorf("cluster: control socket %s: a unix socket path has at most %d bytes; use a shorter data dir", path, maxSocketPath)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("cluster: control socket: %w", err)
	}
	l, err := net.Listen("unix", path)
	if err != nil {
		return fmt.Errorf("cluster: control socket: %w", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		_ = l.Close()
		return fmt.Errorf("cluster: control socket: %w", err)
	}
	srv := &http.Server{Handler: c.controlHandler(), ReadHeaderTimeout: 10 * time.Second}
	c.wg.Add(2)
	go func() {
		defer c.wg.Done()
		_ = srv.Serve(l)
	}()
	go func() {
		defer c.wg.Done()
		<-c.runCtx.Done()
		_ = srv.Close() // closes l, which removes the socket
		_ = os.Remove(path)
	}()
	return nil
}

// controlHandler routes the control endpoint's requests.
func (c *Cluster) controlHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+controlNodesPath, func(w http.ResponseWriter, r *http.Request) {
		nodes, err := c.NodeKubelets(r.Context())
		if err != nil {
			writeControlError(w, err)
			return
		}
		writeJSON(w, http.StatusOK, nodes)
	})
	mux.HandleFunc("POST "+controlStopPath, c.controlAction(c.StopNodeKubelet))
	mux.HandleFunc("POST "+controlStartPath, c.controlAction(c.StartNodeKubelet))
	return mux
}

// controlAction answers a stop or start of the node in the path with
// the node's state afterwards.
func (c *Cluster) controlAction(act func(name string) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		name := r.PathValue("name")
		if err := act(name); err != nil {
			writeControlError(w, err)
			return
		}
		nodes, err := c.NodeKubelets(r.Context())
		if err != nil {
			writeControlError(w, err)
			return
		}
		state := NodeKubelet{Name: name}
		for _, n := range nodes {
			if n.Name == name {
				state = n
			}
		}
		writeJSON(w, http.StatusOK, state)
	}
}

// controlError is the body of a failed control request: the message and
// which of the node control errors it is ("" for none).
type controlError struct {
	Error  string `json:"error"`
	Reason string `json:"reason,omitempty"`
}

// controlReasons names the node control errors on the wire, with their
// HTTP status.
var controlReasons = []struct {
	err    error
	reason string
	status int
}{
	{ErrUnknownNode, "UnknownNode", http.StatusNotFound},
	{ErrKubeletStopped, "KubeletStopped", http.StatusConflict},
	{ErrKubeletRunning, "KubeletRunning", http.StatusConflict},
}

func writeControlError(w http.ResponseWriter, err error) {
	for _, r := range controlReasons {
		if errors.Is(err, r.err) {
			writeJSON(w, r.status, controlError{Error: err.Error(), Reason: r.reason})
			return
		}
	}
	writeJSON(w, http.StatusInternalServerError, controlError{Error: err.Error()})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// startControl serves the control endpoint for Start and notes the
// outcome as a startup step: a cluster whose socket cannot be made (its
// path too long) runs without it, `kubesim node` then says nothing
// answers.
func (c *Cluster) startControl() {
	if err := c.serveControl(); err != nil {
		c.startup.add(StartupRun, "control", "skipped", err.Error())
		return
	}
	c.startup.add(StartupRun, "control", "listening", ControlSocketPath(c.DataDir)+" (kubesim node list|stop|start)")
}
