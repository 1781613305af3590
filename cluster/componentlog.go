package cluster

import (
	"io"
	"os"

	"gopkg.in/natefinch/lumberjack.v2"
)

// The components' log (logs/apiserver.log: the API server, the
// controllers, the scheduler, the kubelets, through klog and slog)
// rotates as the audit log and etcd's log do: at componentLogMaxSizeMB it
// is renamed with its time and a new one started, keeping the
// componentLogMaxBackups newest. A 1,000-node serve wrote about 4 MB an
// hour of it, far more when the machine was overloaded.
const (
	componentLogMaxSizeMB  = 100
	componentLogMaxBackups = 3
)

// openComponentLog opens the log at path, created readable by this user
// only (the rotated files keep its mode), and fails now if it cannot be
// written rather than at the first line.
func openComponentLog(path string) (io.WriteCloser, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	return &lumberjack.Logger{Filename: path, MaxSize: componentLogMaxSizeMB, MaxBackups: componentLogMaxBackups}, nil
}
