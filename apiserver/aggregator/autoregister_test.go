package aggregator

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	apiregv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// fakeClient records the writes of the controllers.
type fakeClient struct{ calls []string }

func (f *fakeClient) Create(_ context.Context, a *apiregv1.APIService) (*apiregv1.APIService, error) {
	f.calls = append(f.calls, "create "+a.Name+" "+a.Labels[AutoRegisterManagedLabel])
	return a, nil
}

func (f *fakeClient) Update(_ context.Context, a *apiregv1.APIService) (*apiregv1.APIService, error) {
	f.calls = append(f.calls, fmt.Sprintf("update %s versionPriority=%d", a.Name, a.Spec.VersionPriority))
	return a, nil
}

func (f *fakeClient) UpdateStatus(_ context.Context, a *apiregv1.APIService) (*apiregv1.APIService, error) {
	f.calls = append(f.calls, "status "+a.Name)
	return a, nil
}

func (f *fakeClient) Delete(_ context.Context, name string, uid types.UID) error {
	f.calls = append(f.calls, "delete "+name+" "+string(uid))
	return nil
}

// idleInformer is an informer that is never run: tests fill its store.
func idleInformer() cache.SharedIndexInformer {
	lw := &cache.ListWatch{
		ListWithContextFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
			return &apiregv1.APIServiceList{}, nil
		},
		WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) { return watch.NewFake(), nil },
	}
	return cache.NewSharedIndexInformer(lw, &apiregv1.APIService{}, 0, cache.Indexers{})
}

func existing(name, managed string, versionPriority int32) *apiregv1.APIService {
	a := apiService("example.com", "v1", 1000, versionPriority)
	a.Name, a.UID = name, types.UID("uid-"+name)
	if managed != "" {
		a.Labels = map[string]string{AutoRegisterManagedLabel: managed}
	}
	return a
}

// TestAutoRegisterDecisions: the autoregister controller's decision table,
// upstream's, one APIService at a time.
func TestAutoRegisterDecisions(t *testing.T) {
	tests := []struct {
		name    string
		current *apiregv1.APIService // in the informer (nil: missing)
		atStart bool                 // it existed when Run began
		want    func(*AutoRegisterController)
		synced  bool // already synced once
		calls   []string
	}{
		{"missing and wanted onstart: created", nil, false,
			func(c *AutoRegisterController) { c.AddAPIServiceToSyncOnStart(existing("v1.a", "", 15)) }, false, []string{"create v1.a onstart"}},
		{"missing and wanted onstart, start over: left", nil, false,
			func(c *AutoRegisterController) { c.AddAPIServiceToSyncOnStart(existing("v1.a", "", 15)) }, true, nil},
		{"missing and wanted continuously: created", nil, false,
			func(c *AutoRegisterController) { c.AddAPIServiceToSync(existing("v1.a", "", 15)) }, true, []string{"create v1.a true"}},
		{"not ours: never touched", existing("v1.a", "", 1), true, func(*AutoRegisterController) {}, false, nil},
		{"ours onstart, unwanted at start: deleted", existing("v1.a", ManageOnStart, 1), true, func(*AutoRegisterController) {}, false, []string{"delete v1.a uid-v1.a"}},
		{"ours onstart, created since start: left", existing("v1.a", ManageOnStart, 1), false, func(*AutoRegisterController) {}, false, nil},
		{"ours continuously, unwanted: deleted", existing("v1.a", ManageContinuously, 1), false, func(*AutoRegisterController) {}, true, []string{"delete v1.a uid-v1.a"}},
		{"ours continuously, spec differs: updated", existing("v1.a", ManageContinuously, 1), false,
			func(c *AutoRegisterController) { c.AddAPIServiceToSync(existing("v1.a", "", 15)) }, true, []string{"update v1.a versionPriority=15"}},
		{"ours continuously, same spec: left", existing("v1.a", ManageContinuously, 15), false,
			func(c *AutoRegisterController) { c.AddAPIServiceToSync(existing("v1.a", "", 15)) }, true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inf, client := idleInformer(), &fakeClient{}
			c, err := NewAutoRegisterController(inf, client)
			if err != nil {
				t.Fatal(err)
			}
			if tt.current != nil {
				if err := inf.GetIndexer().Add(tt.current); err != nil {
					t.Fatal(err)
				}
			}
			c.atStart["v1.a"], c.synced1["v1.a"] = tt.atStart, tt.synced
			tt.want(c)
			if err := c.check(context.Background(), "v1.a"); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(client.calls, tt.calls) {
				t.Errorf("writes = %q, want %q", client.calls, tt.calls)
			}
		})
	}
}
