package cluster

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// ErrNoRunningKubesim: no control socket answers where one was looked for.
var ErrNoRunningKubesim = errors.New("no running kubesim")

// ControlClient talks to the control endpoint (ControlSocket) of a
// kubesim running in another process. Safe for concurrent use.
type ControlClient struct {
	// DataDir is the running kubesim's data dir.
	DataDir string
	http    *http.Client
}

// controlDialTimeout bounds the connect to a control socket.
const controlDialTimeout = 2 * time.Second

// DialControl returns a client of the kubesim whose data dir is dataDir,
// once its control socket has answered; the error wraps
// ErrNoRunningKubesim when none does.
func DialControl(dataDir string) (*ControlClient, error) {
	path := ControlSocketPath(dataDir)
	if !socketAnswers(path) {
		return nil, fmt.Errorf("%w in %s: nothing answers on %s (start one with: kubesim serve --data-dir %s)",
			ErrNoRunningKubesim, dataDir, path, dataDir)
	}
	return newControlClient(dataDir), nil
}

// FindControl returns a client of the one kubesim running with a
// temporary data dir (os.TempDir()/kubesim-*, what serve and play use
// without --data-dir). It is an error, wrapping ErrNoRunningKubesim, if
// none runs; and one naming them all if several do.
func FindControl() (*ControlClient, error) {
	sockets, _ := filepath.Glob(filepath.Join(os.TempDir(), "kubesim-*", ControlSocket))
	var dirs []string
	for _, s := range sockets {
		if socketAnswers(s) {
			dirs = append(dirs, filepath.Dir(s))
		}
	}
	switch len(dirs) {
	case 0:
		return nil, fmt.Errorf("%w found in %s (kubesim serve and kubesim play listen there without --data-dir; for one started with --data-dir DIR, give the same --data-dir DIR)",
			ErrNoRunningKubesim, filepath.Join(os.TempDir(), "kubesim-*"))
	case 1:
		return newControlClient(dirs[0]), nil
	}
	return nil, fmt.Errorf("%d kubesims are running, with data dirs %s: choose one with --data-dir", len(dirs), strings.Join(dirs, ", "))
}

// socketAnswers reports whether something accepts connections on the
// unix socket path.
func socketAnswers(path string) bool {
	conn, err := net.DialTimeout("unix", path, controlDialTimeout)
	if err != nil {
		return false
	}
	_ = conn.Close()
	return true
}

func newControlClient(dataDir string) *ControlClient {
	path := ControlSocketPath(dataDir)
	tr := &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", path)
	}}
	return &ControlClient{DataDir: dataDir, http: &http.Client{Transport: tr, Timeout: time.Minute}}
}

// Close lets the client's idle connections go.
func (cc *ControlClient) Close() { cc.http.CloseIdleConnections() }

// Nodes lists the running kubesim's nodes (Cluster.NodeKubelets).
func (cc *ControlClient) Nodes(ctx context.Context) ([]NodeKubelet, error) {
	var nodes []NodeKubelet
	err := cc.do(ctx, http.MethodGet, controlNodesPath, &nodes)
	return nodes, err
}

// StopKubelet stops the kubelet of node name (Cluster.StopNodeKubelet)
// and returns the node's state afterwards.
func (cc *ControlClient) StopKubelet(ctx context.Context, name string) (NodeKubelet, error) {
	var n NodeKubelet
	err := cc.do(ctx, http.MethodPost, strings.Replace(controlStopPath, "{name}", url.PathEscape(name), 1), &n)
	return n, err
}

// StartKubelet starts the kubelet of node name (Cluster.StartNodeKubelet)
// and returns the node's state afterwards.
func (cc *ControlClient) StartKubelet(ctx context.Context, name string) (NodeKubelet, error) {
	var n NodeKubelet
	err := cc.do(ctx, http.MethodPost, strings.Replace(controlStartPath, "{name}", url.PathEscape(name), 1), &n)
	return n, err
}

// do sends a request and decodes the answer into out; a failed request
// comes back as the error the cluster returned (errors.Is finds
// ErrUnknownNode and the others).
func (cc *ControlClient) do(ctx context.Context, method, path string, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, "http://kubesim"+path, nil)
	if err != nil {
		return err
	}
	resp, err := cc.http.Do(req)
	if err != nil {
		return fmt.Errorf("kubesim in %s: %w", cc.DataDir, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("kubesim in %s: %w", cc.DataDir, err)
	}
	if resp.StatusCode != http.StatusOK {
		return decodeControlError(resp.StatusCode, body)
	}
	return json.Unmarshal(body, out)
}

// decodeControlError turns a failed answer back into the cluster's error.
func decodeControlError(status int, body []byte) error {
	var ce controlError
	if err := json.Unmarshal(body, &ce); err != nil || ce.Error == "" {
		return fmt.Errorf("control endpoint answered %d: %s", status, bytes.TrimSpace(body))
	}
	for _, r := range controlReasons {
		if r.reason == ce.Reason {
			return &remoteError{msg: ce.Error, is: r.err}
		}
	}
	return errors.New(ce.Error)
}

// remoteError is an error of the cluster in the other process: its
// message, and the node control error it wraps there.
type remoteError struct {
	msg string
	is  error
}

func (e *remoteError) Error() string { return e.msg }
func (e *remoteError) Unwrap() error { return e.is }
