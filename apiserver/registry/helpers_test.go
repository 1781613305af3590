package registry_test

import (
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/labels"
)

func mustQ(s string) resource.Quantity { return resource.MustParse(s) }

func labelsParse(s string) (labels.Selector, error) { return labels.Parse(s) }
