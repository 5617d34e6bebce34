package jobs

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

func TestConnConfigReportsEveryProblem(t *testing.T) {
	t.Parallel()
	_, err := ConnConfig{CredsFile: "/no/such.creds", TLSCert: "/tmp/cert.pem"}.Options()
	if err == nil || !strings.Contains(err.Error(), "--nats-creds /no/such.creds") || !strings.Contains(err.Error(), "go together") {
		t.Fatalf("got %v", err)
	}
	opts, err := ConnConfig{}.Options()
	if err != nil || len(opts) != 0 {
		t.Fatalf("an empty config adds no options: %v %v", opts, err)
	}
}

// A server that demands a user and password accepts the worker with them and refuses it without.
func TestConnConfigAuthenticates(t *testing.T) {
	t.Parallel()
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: server.RANDOM_PORT, NoLog: true, NoSigs: true,
		Username: "corroborate", Password: "s3cret-pass", JetStream: true, StoreDir: filepath.Join(t.TempDir(), "js")})
	if err != nil {
		t.Fatal(err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(5e9) {
		t.Fatal("server not ready")
	}
	t.Cleanup(ns.Shutdown)

	if nc, err := nats.Connect(ns.ClientURL()); err == nil {
		nc.Close()
		t.Fatal("connected without credentials")
	}
	opts, err := ConnConfig{User: "corroborate", Password: "s3cret-pass"}.Options()
	if err != nil {
		t.Fatal(err)
	}
	nc, err := nats.Connect(ns.ClientURL(), opts...)
	if err != nil {
		t.Fatalf("with credentials: %v", err)
	}
	nc.Close()
}
