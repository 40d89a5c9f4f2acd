package manager

import (
	"strings"
	"testing"
)

func TestSoftMemoryLimitIsNinetyPercentOfTheContainersUnlessGOMEMLIMITIsSet(t *testing.T) {
	for _, tc := range []struct {
		name      string
		env       map[string]string
		wantLimit int64
		wantOK    bool
		wantErr   string
	}{
		{name: "the Deployment's 512Mi", env: map[string]string{ContainerMemoryLimitEnv: "536870912"},
			wantLimit: 483183810, wantOK: true},
		{name: "GOMEMLIMIT set by the operator wins",
			env: map[string]string{ContainerMemoryLimitEnv: "536870912", "GOMEMLIMIT": "300MiB"}},
		{name: "no limit known (run outside a Pod)", env: map[string]string{}},
		{name: "a quantity with a unit is not bytes", env: map[string]string{ContainerMemoryLimitEnv: "512Mi"},
			wantErr: `CONTAINER_MEMORY_LIMIT="512Mi": not a positive number of bytes`},
		{name: "zero", env: map[string]string{ContainerMemoryLimitEnv: "0"},
			wantErr: `CONTAINER_MEMORY_LIMIT="0": not a positive number of bytes`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			limit, ok, err := SoftMemoryLimit(func(k string) string { return tc.env[k] })
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || limit != tc.wantLimit || ok != tc.wantOK {
				t.Errorf("SoftMemoryLimit = %d, %t, %v; want %d, %t", limit, ok, err, tc.wantLimit, tc.wantOK)
			}
		})
	}
}
