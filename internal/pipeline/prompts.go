package pipeline

import (
	"bytes"
	"embed"
	"fmt"
	"strings"
	"text/template"
)

// promptFiles are the prompts of the specification, one file each, verbatim. A file's last
// newline is not part of its prompt: the specification's prompts end where their code block ends.
//
//go:embed prompts/*.tmpl
var promptFiles embed.FS

var promptTemplates = loadPrompts()

// promptFuncs escape what a template inserts: "untrusted" a section's content (EscapeFenced: no
// fence can be opened or closed from inside it), "line" one entry of a line-structured block
// (FenceLine: no line of its own either). The templates stay the specification's text; only the
// inserted values change, and only when they hold markup or line breaks.
var promptFuncs = template.FuncMap{"untrusted": EscapeFenced, "line": FenceLine}

func loadPrompts() *template.Template {
	root := template.New("prompts").Funcs(promptFuncs)
	entries, err := promptFiles.ReadDir("prompts")
	if err != nil {
		panic(fmt.Sprintf("pipeline: reading embedded prompts: %v", err))
	}
	for _, e := range entries {
		raw, err := promptFiles.ReadFile("prompts/" + e.Name())
		if err != nil {
			panic(fmt.Sprintf("pipeline: reading prompt %s: %v", e.Name(), err))
		}
		name := strings.TrimSuffix(e.Name(), ".tmpl")
		text := strings.TrimSuffix(string(raw), "\n")
		template.Must(root.New(name).Option("missingkey=error").Funcs(promptFuncs).Parse(text))
	}
	return root
}

// RenderPrompt renders the named prompt (its file name without .tmpl) with data.
func RenderPrompt(name string, data any) (string, error) {
	t := promptTemplates.Lookup(name)
	if t == nil {
		return "", fmt.Errorf("prompt %q does not exist", name)
	}
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		return "", fmt.Errorf("rendering prompt %q: %w", name, err)
	}
	return b.String(), nil
}
