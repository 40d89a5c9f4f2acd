package controller

import (
	"context"
	"slices"
	"strings"
	"sync"

	toolscache "k8s.io/client-go/tools/cache"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// maxWatchFailure bounds one watch's error in a message: an apiserver's
// error text is not ours to size.
const maxWatchFailure = 300

// watchFailures keeps the last error of each of the health gate's watches,
// so that a watch that does not list in time says why (a Pod watch in a
// namespace the manager was not granted: "pods is forbidden ...") instead
// of only that it timed out.
type watchFailures struct {
	mu   sync.Mutex
	last map[string]string
}

// record returns the watch error handler of the watch named what: it keeps
// the error, then logs it as client-go's default handler does.
func (f *watchFailures) record(what string) toolscache.WatchErrorHandlerWithContext {
	return func(ctx context.Context, r *toolscache.Reflector, err error) {
		f.mu.Lock()
		if f.last == nil {
			f.last = map[string]string{}
		}
		f.last[what] = sloconfig.Shorten(err.Error(), maxWatchFailure)
		f.mu.Unlock()
		toolscache.DefaultWatchErrorHandler(ctx, r, err)
	}
}

// describe is ": " and the last error of each watch that had one, or "".
func (f *watchFailures) describe() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.last) == 0 {
		return ""
	}
	var out []string
	for what, err := range f.last {
		out = append(out, what+": "+err)
	}
	slices.Sort(out)
	return ": " + strings.Join(out, "; ")
}
