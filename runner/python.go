package runner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// PythonEnv names the Python interpreter that serves Python policies: one
// with the schedlab Python package installed (python/). Unset, it is
// python3 on PATH (a virtual environment's, once activated).
const PythonEnv = "SCHEDLAB_PYTHON"

// Python returns the interpreter that serves Python policies (PythonEnv).
func Python() string {
	if p := os.Getenv(PythonEnv); p != "" {
		return p
	}
	return "python3"
}

// python resolves a policy file written in Python: the schedlab Python
// package serves it (python -m schedlab.plugin FILE), and says what
// identifies it: the file and those its policy names, the package's
// sources, the Python and the distributions loaded. The sha256 of that
// description stands for its code in run keys, and provenance keeps it.
func (r Resolver) python(ctx context.Context, ref string) (*Resolved, error) {
	abs, err := filepath.Abs(ref)
	if err != nil {
		return nil, err
	}
	py := Python()
	cmd := childCommand(ctx, r.Supervisor, py, "-m", "schedlab.plugin", "identity", abs)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		var ee *exec.Error
		if errors.As(err, &ee) || strings.Contains(msg, "No module named schedlab") {
			msg += fmt.Sprintf("\n(Python policies need the schedlab Python package in the interpreter %s names, or python3: "+
				"pip install ./python from a checkout)", PythonEnv)
		}
		return nil, fmt.Errorf("policy %q: %s -m schedlab.plugin identity: %w\n%s", ref, py, err, msg)
	}
	id := strings.TrimSpace(string(out))
	sum, err := FileSHA256(abs)
	if err != nil {
		return nil, fmt.Errorf("policy %q: %w", ref, err)
	}
	h := sha256.Sum256([]byte(id))
	return &Resolved{
		Ref: ref, Kind: KindPython, Command: []string{py, "-m", "schedlab.plugin", abs},
		Binary: abs, SHA256: sum, Identity: hex.EncodeToString(h[:]), Python: id,
	}, nil
}
