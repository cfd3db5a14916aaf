package client

import (
	"context"
	"testing"

	"google.golang.org/grpc/metadata"
)

// A statement's context reaches storaged too: WithCredential must not put
// the credential into outgoing metadata; only the users and roles calls
// (sendCredential) send it.
func TestCredentialGoesOnlyToUsersCalls(t *testing.T) {
	ctx := WithCredential(context.Background(), []byte("secret-credential"))
	if md, ok := metadata.FromOutgoingContext(ctx); ok && len(md.Get(CredentialHeader)) > 0 {
		t.Fatalf("WithCredential put the credential into the outgoing metadata of every call: %v", md)
	}
	md, _ := metadata.FromOutgoingContext(AttachCredential(ctx))
	if got := md.Get(CredentialHeader); len(got) != 1 || got[0] != "secret-credential" {
		t.Fatalf("a users call carries %q, want the credential once", got)
	}
	if md, ok := metadata.FromOutgoingContext(AttachCredential(context.Background())); ok && len(md.Get(CredentialHeader)) > 0 {
		t.Fatalf("a context without a credential sends one: %v", md)
	}
}
