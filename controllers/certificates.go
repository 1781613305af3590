package controllers

import (
	"context"
	"fmt"
	"sync"
	"time"

	certificatesinformers "k8s.io/client-go/informers/certificates/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/kubernetes/pkg/controller/certificates/cleaner"
	"k8s.io/kubernetes/pkg/controller/certificates/signer"
)

// CertificateControllerName is the service account and user agent of the
// certificate controllers (upstream's csrsigning and csrcleaner, which
// kube-controller-manager gives the one client "certificate-controller").
const CertificateControllerName = "certificate-controller"

// DefaultClusterSigningDuration is the longest a signed certificate is
// valid (kube-controller-manager's --cluster-signing-duration default,
// one year); a request's spec.expirationSeconds may ask for less.
const DefaultClusterSigningDuration = 365 * 24 * time.Hour

// newCertificateControllerDescriptor is upstream's csrsigning and
// csrcleaner controllers. The signers sign approved requests of the
// kubernetes.io/kube-apiserver-client, kube-apiserver-client-kubelet,
// kubelet-serving and legacy-unknown signers with the CA in
// Config.ClusterSigningCertFile and KeyFile (kubeadm passes its cluster
// CA, the one the API server trusts for client certificates), 5 workers
// each, as cmd/kube-controller-manager/app/certificates.go; the cleaner
// deletes old, denied, failed and expired requests (1 worker). Without
// the files no signer runs, as upstream skips it.
func newCertificateControllerDescriptor() controllerDescriptor {
	return controllerDescriptor{name: CertificateControllerName, workers: fixedWorkers(5),
		build: func(cc *controllerContext) (runFunc, error) {
			return cc.upstream(CertificateControllerName, func(ctx context.Context, client kubernetes.Interface, _ *rest.Config) (runFunc, error) {
				csrs := cc.factory.Certificates().V1().CertificateSigningRequests()
				runs := []runFunc{func(ctx context.Context, _ int) {
					cleaner.NewCSRCleanerController(client.CertificatesV1().CertificateSigningRequests(), csrs).Run(ctx, 1)
				}}
				certFile, keyFile := cc.cfg.ClusterSigningCertFile, cc.cfg.ClusterSigningKeyFile
				if certFile == "" || keyFile == "" {
					return concurrently(runs), nil
				}
				ttl := cc.cfg.ClusterSigningDuration
				if ttl == 0 {
					ttl = DefaultClusterSigningDuration
				}
				for _, newSigner := range []func(context.Context, kubernetes.Interface, certificatesinformers.CertificateSigningRequestInformer, string, string, time.Duration) (*signer.CSRSigningController, error){
					signer.NewKubeletServingCSRSigningController, signer.NewKubeletClientCSRSigningController,
					signer.NewKubeAPIServerClientCSRSigningController, signer.NewLegacyUnknownCSRSigningController,
				} {
					s, err := newSigner(ctx, client, csrs, certFile, keyFile, ttl)
					if err != nil {
						return nil, fmt.Errorf("csrsigning: %w", err)
					}
					runs = append(runs, s.Run)
				}
				return concurrently(runs), nil
			})
		}}
}

// concurrently runs each of runs with the workers given, and returns
// when all have returned.
func concurrently(runs []runFunc) runFunc {
	return func(ctx context.Context, workers int) {
		var wg sync.WaitGroup
		for _, run := range runs {
			wg.Go(func() { run(ctx, workers) })
		}
		wg.Wait()
	}
}
