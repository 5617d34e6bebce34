package llm

import (
	"fmt"
	"os"
	"strings"

	"github.com/corroborate/corroborate/internal/envflag"
)

// The variables the API key is read from: never a flag, where it would show in the process list.
const (
	EnvAPIKey     = "OPENAI_API_KEY"
	EnvAPIKeyFile = "OPENAI_API_KEY_FILE"
)

// DefineKeyEnv lists the API key's variables in the --help of every command that calls a model,
// so that each says the same; read them with APIKeyFromEnv.
func DefineKeyEnv(s *envflag.Set) {
	s.Secret(EnvAPIKey, "the model endpoint's API key (OpenAI, or any OpenAI-compatible server that wants one)")
	s.Secret(EnvAPIKeyFile, "a file holding the API key, read when $"+EnvAPIKey+" is unset (a Docker or Kubernetes secret)")
}

// APIKeyFromEnv returns the API key from OPENAI_API_KEY or, when that is unset or empty, from
// the file OPENAI_API_KEY_FILE names (surrounding white space trimmed). No key is "", nil.
func APIKeyFromEnv() (string, error) {
	key := os.Getenv(EnvAPIKey)
	if path := os.Getenv(EnvAPIKeyFile); path != "" && key == "" {
		raw, err := os.ReadFile(path)
		if err != nil {
			return "", fmt.Errorf("%s: %w (name a readable file holding the key, or set %s)", EnvAPIKeyFile, err, EnvAPIKey)
		}
		key = strings.TrimSpace(string(raw))
	}
	return key, nil
}
