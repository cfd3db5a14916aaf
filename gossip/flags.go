package gossip

import "flag"

// RegisterKeyFileFlag adds --gossip-key-file to a daemon's flags.
func RegisterKeyFileFlag(fs *flag.FlagSet) *string {
	return fs.String("gossip-key-file", "", "the gossip keyring: one base64 AES key per line, the first the one sent with (nova-certs writes gossip.key); every daemon of a cluster needs it once one has it. Empty: plaintext gossip (docs/security.md)")
}

// LoadKeys reads the keyring --gossip-key-file names (LoadKeyFile); none
// for "".
func LoadKeys(path string) ([][]byte, error) {
	if path == "" {
		return nil, nil
	}
	return LoadKeyFile(path)
}
