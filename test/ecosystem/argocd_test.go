package ecosystem

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/test/envtestharness"
)

// healthPage is the page that ships the Argo CD health check: its one lua
// block is the script the test runs, so the page and the test cannot drift.
var healthPage = envtestharness.RepoPath(filepath.FromSlash("docs/argocd-health.md"))

// argoHealthStatuses are the statuses Argo CD accepts from a health check;
// it reports anything else as Unknown.
var argoHealthStatuses = []string{healthy, progressing, degraded, suspended, "Missing", "Unknown"}

// TestArgoCDHealth runs the health check of docs/argocd-health.md on each
// kind of status, as Argo CD runs a custom health check: the object as the
// global obj, the table the script returns read for status and message.
func TestArgoCDHealth(t *testing.T) {
	script := luaBlock(t, healthPage)
	for _, r := range recordings() {
		t.Run(r.name, func(t *testing.T) {
			u, o := r.object(t)
			health, message := runHealthCheck(t, script, u)
			if health != r.health {
				t.Errorf("health %s (%q), want %s", health, message, r.health)
			}
			if want := r.wantMessage(t, o); message != want {
				t.Errorf("message %q,\nwant %q", message, want)
			}
		})
	}
}

// TestArgoCDHealthOddObjects: the check returns one of Argo CD's statuses,
// with a message, for objects the controller does not write but a reader
// may meet: an empty status, conditions without a message, a status of a
// controller that sets no conditions.
func TestArgoCDHealthOddObjects(t *testing.T) {
	script := luaBlock(t, healthPage)
	object := func(status map[string]any) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "nodeslo.koordinator.sh/v1alpha1", "kind": "NodeSLORollout",
			"metadata": map[string]any{"name": "slo-controller-config", "generation": int64(1)},
		}}
		if status != nil {
			u.Object["status"] = status
		}
		return u
	}
	// decided is a status of generation 1 with the given fields.
	decided := func(fields ...any) map[string]any {
		status := map[string]any{"observedGeneration": int64(1)}
		for i := 0; i+1 < len(fields); i += 2 {
			status[fields[i].(string)] = fields[i+1]
		}
		return status
	}
	condition := func(kind, status string) []any {
		return []any{map[string]any{"type": kind, "status": status, "reason": "R"}}
	}
	tests := []struct {
		name           string
		status         map[string]any
		health, prefix string
	}{
		{"empty status", map[string]any{}, progressing, "waiting for the controller's first status"},
		{"generation 1 not observed", map[string]any{"observedGeneration": int64(0)}, progressing,
			"waiting for the controller to decide on generation 1 (the status is of generation 0)"},
		{"Stalled without a message", decided("conditions", condition("Stalled", "True")), degraded,
			"the rollout waits for an operator"},
		{"Halted alone", decided("conditions", condition("Halted", "True")), degraded, "the health gate halted"},
		{"Ready without a message", decided("conditions", condition("Ready", "True")), healthy,
			"the configuration is in force"},
		{"paused, no conditions", decided("phase", "Paused", "paused", true), suspended, "the rollout is paused"},
		{"completed, no conditions", decided("phase", "Completed"), progressing,
			"waiting for the controller's conditions"},
		{"a condition with no type", decided("conditions", []any{map[string]any{"status": "True"}}), progressing,
			"waiting"},
		// What the controller writes when a plan fails (docs/rollout.md#conditions).
		{"a failed plan", decided("phase", "Progressing", "conditions", planFailed(t)), progressing,
			"cannot plan the rollout of configuration 5089928f322f; trying again"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			health, message := runHealthCheck(t, script, object(tt.status))
			if health != tt.health || message == "" || !strings.HasPrefix(message, tt.prefix) {
				t.Errorf("%s %q, want %s %q...", health, message, tt.health, tt.prefix)
			}
		})
	}
}

// planFailed are the conditions the controller sets when a plan fails
// (rollout.SetPlanFailedConditions), as the object carries them.
func planFailed(t *testing.T) []any {
	var conditions []metav1.Condition
	rollout.SetPlanFailedConditions(&conditions, strings.Repeat("5089928f322f", 5)+"abcd",
		errors.New("reading NodeSLOs for the rollout: connection refused"), 1, time.Unix(0, 0))
	out := make([]any, 0, len(conditions))
	for i := range conditions {
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&conditions[i])
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, u)
	}
	return out
}

// luaBlock is the one ```lua block of the Markdown file at path.
func luaBlock(t *testing.T, path string) string {
	t.Helper()
	page, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []string
	var block strings.Builder
	in := false
	for line := range strings.Lines(string(page)) {
		trimmed := strings.TrimSpace(line)
		switch {
		case !in && trimmed == "```lua":
			in = true
			block.Reset()
		case in && trimmed == "```":
			in = false
			blocks = append(blocks, block.String())
		case in:
			block.WriteString(line)
		}
	}
	if in {
		t.Fatalf("%s: a ```lua block is not closed", path)
	}
	if len(blocks) != 1 {
		t.Fatalf("%s holds %d ```lua blocks, want exactly one: the health check", path, len(blocks))
	}
	return blocks[0]
}

// runHealthCheck runs script as Argo CD runs a health check: in a fresh
// Lua state, with the object u as the global obj (maps as tables with
// string keys, lists as sequences from 1, numbers as Lua numbers), the
// value the script returns read as a table with status and message. Only
// Lua's base functions are open: a script that needs more fails here.
func runHealthCheck(t *testing.T, script string, u *unstructured.Unstructured) (health, message string) {
	t.Helper()
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer L.Close()
	L.Push(L.NewFunction(lua.OpenBase))
	L.Push(lua.LString(lua.BaseLibName))
	L.Call(1, 0)
	obj, err := luaValue(L, u.Object)
	if err != nil {
		t.Fatalf("the object as Lua: %v", err)
	}
	L.SetGlobal("obj", obj)
	if err := L.DoString(script); err != nil {
		t.Fatalf("the health check failed: %v", err)
	}
	result, ok := L.Get(-1).(*lua.LTable)
	if !ok {
		t.Fatalf("the health check returned %s, not a table", L.Get(-1).Type())
	}
	status, ok := result.RawGetString("status").(lua.LString)
	if !ok {
		t.Fatalf("the health check's status is %s, not a string", result.RawGetString("status").Type())
	}
	if !slices.Contains(argoHealthStatuses, string(status)) {
		t.Errorf("the health check's status %q is not one Argo CD knows: %v", status, argoHealthStatuses)
	}
	msg, ok := result.RawGetString("message").(lua.LString)
	if !ok {
		t.Fatalf("the health check's message is %s, not a string", result.RawGetString("message").Type())
	}
	return string(status), string(msg)
}

// luaValue is v, a value of an unstructured object, as a Lua value.
func luaValue(L *lua.LState, v any) (lua.LValue, error) {
	switch v := v.(type) {
	case nil:
		return lua.LNil, nil
	case string:
		return lua.LString(v), nil
	case bool:
		return lua.LBool(v), nil
	case int64:
		return lua.LNumber(v), nil
	case float64:
		return lua.LNumber(v), nil
	case []any:
		list := L.CreateTable(len(v), 0)
		for _, item := range v {
			value, err := luaValue(L, item)
			if err != nil {
				return nil, err
			}
			list.Append(value)
		}
		return list, nil
	case map[string]any:
		table := L.CreateTable(0, len(v))
		for key, item := range v {
			value, err := luaValue(L, item)
			if err != nil {
				return nil, err
			}
			table.RawSetString(key, value)
		}
		return table, nil
	}
	return nil, fmt.Errorf("a value of type %T", v)
}
