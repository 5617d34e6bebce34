package jobs

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/nats-io/nats.go"

	"github.com/corroborate/corroborate/internal/envflag"
)

// ConnConfig is how enqueue and the worker authenticate to NATS and secure the connection in
// production. Files are named by flags; secrets themselves (a password, a token) come only from
// the environment, never from a flag that would show in the process list.
type ConnConfig struct {
	// CredsFile is a NATS .creds file (JWT and NKey seed), as NGS and operator mode use.
	CredsFile string
	// NKeyFile is an NKey seed file.
	NKeyFile string
	// TLSCA verifies the server; TLSCert and TLSKey are the client certificate (mutual TLS).
	TLSCA, TLSCert, TLSKey string
	// User and Password, or Token, from NATS_USER, NATS_PASSWORD and NATS_TOKEN.
	User, Password, Token string
}

// Environment variables of the NATS secrets.
const (
	EnvNATSUser     = "NATS_USER"
	EnvNATSPassword = "NATS_PASSWORD"
	EnvNATSToken    = "NATS_TOKEN"
)

// DefineFlags defines the connection's file flags on fs and reads the secrets from the
// environment.
func (c *ConnConfig) DefineFlags(fs *envflag.Set) {
	fs.String(&c.CredsFile, "nats-creds", "CORROBORATE_NATS_CREDS", "", "NATS credentials file (.creds)")
	fs.String(&c.NKeyFile, "nats-nkey", "CORROBORATE_NATS_NKEY", "", "NATS NKey seed file")
	fs.String(&c.TLSCA, "nats-tls-ca", "CORROBORATE_NATS_TLS_CA", "", "CA certificate file that verifies the NATS server")
	fs.String(&c.TLSCert, "nats-tls-cert", "CORROBORATE_NATS_TLS_CERT", "", "client certificate file for NATS mutual TLS")
	fs.String(&c.TLSKey, "nats-tls-key", "CORROBORATE_NATS_TLS_KEY", "", "client key file for NATS mutual TLS")
	fs.Secret(EnvNATSUser, "NATS user name (with $"+EnvNATSPassword+")")
	fs.Secret(EnvNATSPassword, "NATS password")
	fs.Secret(EnvNATSToken, "NATS token (instead of a user and password)")
	c.User, c.Password, c.Token = os.Getenv(EnvNATSUser), os.Getenv(EnvNATSPassword), os.Getenv(EnvNATSToken)
}

// Options returns the nats.Connect options of c, or every problem of it in one error.
func (c ConnConfig) Options() ([]nats.Option, error) {
	var opts []nats.Option
	var problems []string
	exists := func(flag, path string) bool {
		if _, err := os.Stat(path); err != nil {
			problems = append(problems, fmt.Sprintf("--%s %s: %v", flag, path, err))
			return false
		}
		return true
	}
	if c.CredsFile != "" && exists("nats-creds", c.CredsFile) {
		opts = append(opts, nats.UserCredentials(c.CredsFile))
	}
	if c.NKeyFile != "" && exists("nats-nkey", c.NKeyFile) {
		opt, err := nats.NkeyOptionFromSeed(c.NKeyFile)
		if err != nil {
			problems = append(problems, fmt.Sprintf("--nats-nkey %s: %v", c.NKeyFile, err))
		} else {
			opts = append(opts, opt)
		}
	}
	if c.TLSCA != "" && exists("nats-tls-ca", c.TLSCA) {
		opts = append(opts, nats.RootCAs(c.TLSCA))
	}
	switch {
	case c.TLSCert != "" && c.TLSKey != "":
		if exists("nats-tls-cert", c.TLSCert) && exists("nats-tls-key", c.TLSKey) {
			opts = append(opts, nats.ClientCert(c.TLSCert, c.TLSKey))
		}
	case c.TLSCert != "" || c.TLSKey != "":
		problems = append(problems, "--nats-tls-cert and --nats-tls-key go together: give both")
	}
	if c.User != "" || c.Password != "" {
		opts = append(opts, nats.UserInfo(c.User, c.Password))
	}
	if c.Token != "" {
		opts = append(opts, nats.Token(c.Token))
	}
	if len(problems) > 0 {
		return nil, errors.New("NATS connection: " + strings.Join(problems, "; "))
	}
	return opts, nil
}
