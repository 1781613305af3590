package cluster_test

import (
	"testing"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/cluster"
)

// TestValidateStorageMediaType: serve's --storage-media-type takes JSON
// (the default) and protobuf; anything else is an error naming the
// option, what it takes and the value given.
func TestValidateStorageMediaType(t *testing.T) {
	if got := cluster.NewConfig().StorageMediaType; got != apiserver.StorageMediaTypeJSON {
		t.Errorf("default storage media type = %q, want %q", got, apiserver.StorageMediaTypeJSON)
	}
	for _, mt := range []string{apiserver.StorageMediaTypeJSON, apiserver.StorageMediaTypeProtobuf} {
		cfg := cluster.NewConfig()
		cfg.StorageMediaType = mt
		if err := cfg.Validate(); err != nil {
			t.Errorf("Validate() with %s = %v, want nil", mt, err)
		}
	}
	cfg := cluster.NewConfig()
	cfg.StorageMediaType = "application/yaml"
	want := `--storage-media-type must be application/json or application/vnd.kubernetes.protobuf, got "application/yaml"`
	if err := cfg.Validate(); err == nil || err.Error() != want {
		t.Errorf("Validate() = %v, want %s", err, want)
	}
}
