package controller

import (
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/event"

	"github.com/nodeslo/nodeslo-controller/internal/rollout"
)

// writeEntry writes the entry name of the credentials directory dir as a
// Secret volume holds it: a file per key.
func writeEntry(t *testing.T, dir, name string, files map[string]string) {
	t.Helper()
	entry := filepath.Join(dir, name)
	if err := os.MkdirAll(entry, 0o700); err != nil {
		t.Fatal(err)
	}
	for file, content := range files {
		if err := os.WriteFile(filepath.Join(entry, file), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func TestKeyLimitsReadEachEntrysAddresses(t *testing.T) {
	dir := t.TempDir()
	writeEntry(t, dir, "prom", map[string]string{CredentialToken: "t", CredentialAddresses: "https://p:9091\n"})
	writeEntry(t, dir, "bare", map[string]string{CredentialToken: "t"})
	writeEntry(t, dir, "plain", map[string]string{CredentialToken: "t", CredentialAddresses: "http://p:9090\n"})
	writeEntry(t, dir, "Not_A_Label", map[string]string{CredentialAddresses: "https://p\n"})
	writeEntry(t, dir, "huge", nil)
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "huge", CredentialAddresses)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "stray"), []byte("https://p\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	m := keyLimits{hosts: []string{"p"}, dir: dir}
	got := m.now()
	if got.CredentialsDir != dir || len(got.AllowedHosts) != 1 || len(got.Credentials) != 4 {
		t.Fatalf("limits %+v: want the four entries named as a check may name them, not Not_A_Label nor stray", got)
	}
	for name, want := range map[string]string{
		"bare":  "does not exist",
		"plain": `line 1: "http://p:9090": must be https`,
		"huge":  "cannot be read: larger than the limit of 16 KiB",
	} {
		if p := got.Credentials[name].Problem; !strings.Contains(p, want) {
			t.Errorf("entry %s: problem %q, want one containing %q", name, p, want)
		}
	}
	if err := got.CheckReach("a", "https://p:9091/x", "prom"); err != nil {
		t.Errorf("prom's address refused: %v", err)
	}
	if one := m.forCredential("prom"); len(one.Credentials) != 1 || one.CheckReach("a", "https://p:9091", "prom") != nil {
		t.Errorf("the one entry a query reads: %+v", one)
	}
	for _, name := range []string{"", "missing", "../prom"} {
		if one := m.forCredential(name); len(one.Credentials) != 0 {
			t.Errorf("entry %q read: %+v", name, one)
		}
	}
	if none := (keyLimits{dir: filepath.Join(dir, "absent")}).now(); len(none.Credentials) != 0 {
		t.Errorf("a directory that does not exist has entries: %+v", none)
	}
}

// countingServer is an https server, its certificate that of every
// httptest TLS server (so one CA verifies them all), that records the
// Authorization header of each request and answers as Prometheus does.
type countingServer struct {
	*httptest.Server
	mu   sync.Mutex
	auth []string
}

func startCountingServer(t *testing.T, handle func(w http.ResponseWriter, r *http.Request) bool) *countingServer {
	s := &countingServer{}
	s.Server = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.auth = append(s.auth, r.Header.Get("Authorization"))
		s.mu.Unlock()
		if handle != nil && handle(w, r) {
			return
		}
		_, _ = w.Write([]byte(`{"status":"success","data":{"resultType":"scalar","result":[1,"0.1"]}}`))
	}))
	t.Cleanup(s.Close)
	return s
}

// requests are the Authorization headers of the requests so far ("": none).
func (s *countingServer) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.auth...)
}

func TestQuerierSendsACredentialOnlyToItsAddresses(t *testing.T) {
	second := startCountingServer(t, nil)
	first := startCountingServer(t, func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path != "/redirect/api/v1/query" {
			return false
		}
		http.Redirect(w, r, second.URL+"/api/v1/query", http.StatusTemporaryRedirect)
		return true
	})
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: first.Certificate().Raw})
	dir := t.TempDir()
	writeEntry(t, dir, "prom", map[string]string{CredentialToken: "s3cret", CredentialCA: string(ca),
		CredentialAddresses: first.URL + "\n"})
	// 127.0.0.1 is an allowed host: the credential's addresses, not the
	// hosts, say where it goes.
	q := &prometheusQuerier{limits: keyLimits{hosts: []string{"127.0.0.1"}, dir: dir}}
	query := func(address string) rollout.MetricSample {
		check := &rollout.MetricCheck{Name: "aimed", Address: address, Credentials: "prom", Interval: time.Hour}
		return q.Query(t.Context(), check, "up")
	}

	if s := query(first.URL); s.Err != "" || s.Value != 0.1 {
		t.Fatalf("the credential's own address: %+v", s)
	}
	if got := first.requests(); len(got) != 1 || got[0] != "Bearer s3cret" {
		t.Errorf("the credential's own address was asked with %q", got)
	}
	s := query(second.URL)
	if !strings.Contains(s.Err, "is not queried: check aimed may not send credentials prom there: "+
		"it is not among the addresses of "+filepath.Join(dir, "prom", CredentialAddresses)) {
		t.Errorf("another server of the same CA: %q", s.Err)
	}
	s = query(first.URL + "/redirect")
	if !strings.Contains(s.Err, "answered a redirect (HTTP 307), which is not followed") {
		t.Errorf("a redirect to another server: %q", s.Err)
	}
	if got := second.requests(); len(got) != 0 {
		t.Errorf("the other server was asked %d times, with %q", len(got), got)
	}

	// The directory changed after the strategy was checked: the query reads it again.
	writeEntry(t, dir, "prom", map[string]string{CredentialAddresses: second.URL + "\n"})
	before := len(first.requests())
	if s := query(first.URL); !strings.Contains(s.Err, "may not send credentials prom there") {
		t.Errorf("an address taken out of the file: %q", s.Err)
	}
	if err := os.Remove(filepath.Join(dir, "prom", CredentialAddresses)); err != nil {
		t.Fatal(err)
	}
	if s := query(second.URL); !strings.Contains(s.Err, "credentials prom cannot be used by any check") {
		t.Errorf("an entry without its addresses file: %q", s.Err)
	}
	if n := len(first.requests()) - before; n != 0 || len(second.requests()) != 0 {
		t.Errorf("refused queries reached a server: %d, %q", n, second.requests())
	}

	// Without credentials and without allowed hosts, no address at all.
	none := &prometheusQuerier{limits: keyLimits{dir: dir}}
	before = len(first.requests())
	s = none.Query(t.Context(), &rollout.MetricCheck{Name: "open", Address: first.URL, Interval: time.Hour}, "up")
	if !strings.Contains(s.Err, "is not queried: check open names no credentials, and the manager runs without "+
		"--metric-gate-allowed-hosts") || len(first.requests()) != before {
		t.Errorf("no allowed hosts: %q, %d requests", s.Err, len(first.requests())-before)
	}
}

func TestCredentialsWatchSignalsOnlyAChange(t *testing.T) {
	dir := t.TempDir()
	writeEntry(t, dir, "prom", map[string]string{CredentialToken: "t", CredentialAddresses: "https://p\n"})
	changed := make(chan event.GenericEvent, 1)
	w := &credentialsWatch{limits: keyLimits{dir: dir}, changed: changed}
	first := w.look()
	if second := w.look(); first || second {
		t.Errorf("signalled with nothing changed: first look %v, second %v", first, second)
	}
	writeEntry(t, dir, "prom", map[string]string{CredentialToken: "rotated"})
	if w.look() {
		t.Error("signalled a rotated token, which the key is not checked against")
	}
	writeEntry(t, dir, "prom", map[string]string{CredentialAddresses: "https://p\nhttps://q\n"})
	if !w.look() || len(changed) != 1 {
		t.Error("an address added was not signalled")
	}
	writeEntry(t, dir, "thanos", nil)
	if !w.look() {
		t.Error("an entry added was not signalled")
	}
	if len(changed) != 1 || w.look() {
		t.Error("a pending signal is not kept as one, or the same directory signalled again")
	}
}
