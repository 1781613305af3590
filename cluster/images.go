package cluster

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/kubesim/kubesim/kubelet"
)

// ImageCatalogueFile is the file in the data dir that changes the
// simulated registry's catalogue (kubelet.LoadCatalogue) when
// Config.ImageCatalogue names none.
const ImageCatalogueFile = "images.txt"

// loadImages reads the catalogue the kubelets pull from: the file
// Config.ImageCatalogue names, else the data dir's images.txt if there is
// one, else the default catalogue (c.images stays nil).
func (c *Cluster) loadImages(cfg *Config) error {
	name := cfg.ImageCatalogue
	if name == "" {
		name = filepath.Join(c.DataDir, ImageCatalogueFile)
		if _, err := os.Stat(name); errors.Is(err, fs.ErrNotExist) {
			return nil
		}
	}
	cat, err := kubelet.LoadCatalogue(name)
	if err != nil {
		return err
	}
	c.images = cat
	return nil
}
