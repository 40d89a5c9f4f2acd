package controller

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
)

// A list of the health gate's Pods is asked for in pages sized by what
// the previous page weighed: about podListPageBytes of whole Pods a page,
// from firstPodListPage Pods up to maxPodListPage. A Pod may be 1.5 MiB
// (etcd's request limit), so the first page costs at most 6 MiB before it
// is cut down, and Pods of a few KiB are listed 500 a page.
const (
	firstPodListPage = 4
	maxPodListPage   = 500
	podListPageBytes = 8 << 20
)

// nextPodListPage is the size of the page after one of limit Pods that
// weighed bytes (their protobuf size).
func nextPodListPage(limit int64, bytes int) int64 {
	if bytes <= 0 {
		return maxPodListPage
	}
	return min(max(limit*podListPageBytes/int64(bytes), 1), maxPodListPage)
}

// cutPodsListWatch lists and watches the Pods of namespace that selector
// selects, so that the watch's memory grows with the number of Pods, not
// their size. A watch streams its initial list when client-go's
// WatchListClient is on (the manager's --watch-list-client) and the
// apiserver can (Kubernetes 1.34 and later): client-go's reflector then
// applies the watch's transform to each Pod as it arrives. Otherwise the
// reflector lists: this list asks for pages (nextPodListPage) from a
// consistent read (a list at resourceVersion "0" would be served whole
// from the apiserver's cache), and cuts each page down to the gate's facts
// before it asks for the next.
func cutPodsListWatch(core rest.Interface, namespace, selector string) *toolscache.ListWatch {
	lw := toolscache.NewFilteredListWatchFromClient(core, "pods", namespace,
		func(o *metav1.ListOptions) { o.LabelSelector = selector })
	list := lw.ListWithContextFunc
	lw.ListWithContextFunc = func(ctx context.Context, options metav1.ListOptions) (runtime.Object, error) {
		options.Limit, options.Continue = firstPodListPage, ""
		options.ResourceVersion, options.ResourceVersionMatch = "", ""
		out := &corev1.PodList{}
		for {
			obj, err := list(ctx, options)
			if err != nil {
				return nil, err
			}
			page, ok := obj.(*corev1.PodList)
			if !ok {
				return nil, fmt.Errorf("listing Pods: the apiserver answered with a %T", obj)
			}
			bytes := 0
			for i := range page.Items {
				bytes += page.Items[i].Size()
				cut, _ := keepEvictionFacts(&page.Items[i])
				if pod, ok := cut.(*corev1.Pod); ok {
					out.Items = append(out.Items, *pod)
				}
			}
			out.ResourceVersion = page.ResourceVersion
			if page.Continue == "" {
				return out, nil
			}
			options.Continue, options.Limit = page.Continue, nextPodListPage(options.Limit, bytes)
		}
	}
	return lw
}
