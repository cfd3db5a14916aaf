package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestResolveRootPassword: root's password for a new catalog comes from
// exactly one of the flag, the file (its first line) and the environment,
// or is the default; two ways at once, an unreadable or empty file are
// refused with what was wrong.
func TestResolveRootPassword(t *testing.T) {
	dir := t.TempDir()
	file := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	secret := file("secret", "s3cret\n")
	for _, tc := range []struct {
		name      string
		flagGiven bool
		flagValue string
		file, env string
		want      string // the password, or a part of the error
		wantErr   bool
	}{
		{name: "nothing: the default", flagValue: "nova", want: "nova"},
		{name: "the flag", flagGiven: true, flagValue: "p1", want: "p1"},
		{name: "a file's first line", flagValue: "nova", file: secret, want: "s3cret"},
		{name: "a file with CRLF and more lines", flagValue: "nova", file: file("crlf", "p w\r\nignored\n"), want: "p w"},
		{name: "a file without a line end", flagValue: "nova", file: file("bare", "bare"), want: "bare"},
		{name: "the environment", flagValue: "nova", env: "fromenv", want: "fromenv"},
		{name: "flag and file", flagGiven: true, flagValue: "p1", file: secret, want: "given --root-password and --root-password-file: give it one way", wantErr: true},
		{name: "file and environment", flagValue: "nova", file: secret, env: "x", want: "--root-password-file and NOVA_ROOT_PASSWORD", wantErr: true},
		{name: "an empty file", flagValue: "nova", file: file("empty", "\n"), want: "its first line is empty", wantErr: true},
		{name: "a missing file", flagValue: "nova", file: filepath.Join(dir, "missing"), want: "--root-password-file: open", wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := resolveRootPassword(tc.flagGiven, tc.flagValue, tc.file, tc.env)
			switch {
			case tc.wantErr && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("got %q, %v; want an error with %q", got, err, tc.want)
			case !tc.wantErr && (err != nil || got != tc.want):
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}
