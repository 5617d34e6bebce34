package llm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The key comes from OPENAI_API_KEY, else from the file OPENAI_API_KEY_FILE names (trimmed); a
// file that cannot be read is an error naming the variable.
func TestAPIKeyFromEnv(t *testing.T) {
	file := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(file, []byte("  sk-from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, key, file, want, err string
	}{
		{name: "variable", key: "sk-env", file: file, want: "sk-env"},
		{name: "file when the variable is empty", file: file, want: "sk-from-file"},
		{name: "neither", want: ""},
		{name: "unreadable file", file: filepath.Join(t.TempDir(), "missing"), err: "OPENAI_API_KEY_FILE: open "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(EnvAPIKey, tt.key)
			t.Setenv(EnvAPIKeyFile, tt.file)
			got, err := APIKeyFromEnv()
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("APIKeyFromEnv() = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}
