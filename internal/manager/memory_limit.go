package manager

import (
	"fmt"
	"strconv"
)

// ContainerMemoryLimitEnv is the environment variable the Deployment fills
// with the container's memory limit in bytes (the downward API's
// resourceFieldRef limits.memory; docs/deploy.md, "Memory limit").
const ContainerMemoryLimitEnv = "CONTAINER_MEMORY_LIMIT"

// softMemoryLimitPercent is the share of the container's limit the Go
// runtime collects garbage to stay under (GOMEMLIMIT): the rest is for what
// the runtime does not count (the binary's mapped pages, kernel buffers)
// and leaves the collector room to act before the kernel's OOM killer does.
const softMemoryLimitPercent = 90

// SoftMemoryLimit returns the soft memory limit (GOMEMLIMIT) the manager
// should set, from the environment read by getenv: 90 % of
// CONTAINER_MEMORY_LIMIT. ok is false when there is nothing to set: GOMEMLIMIT
// is in the environment (the runtime applied it at start, and an operator's
// explicit value wins) or CONTAINER_MEMORY_LIMIT is not. A value that is not
// a positive number of bytes is an error naming the variable.
func SoftMemoryLimit(getenv func(string) string) (limit int64, ok bool, err error) {
	if getenv("GOMEMLIMIT") != "" {
		return 0, false, nil
	}
	raw := getenv(ContainerMemoryLimitEnv)
	if raw == "" {
		return 0, false, nil
	}
	bytes, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || bytes <= 0 {
		return 0, false, fmt.Errorf("%s=%q: not a positive number of bytes (the downward API's limits.memory "+
			"with divisor 1)", ContainerMemoryLimitEnv, raw)
	}
	return bytes / 100 * softMemoryLimitPercent, true, nil
}
