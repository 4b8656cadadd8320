// Command outside uses paneteam's root packages as a library, the way a
// program outside its module would: it creates a team under the root
// given as its argument, adds a teammate, signs and sends an entry as the
// team's lead with a Signer of its own, and prints the teammate's inbox.
package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// seedSigner signs every lead entry with one Ed25519 key, as Claude Code's
// lead does for a teammate it started with --lead-verify-key.
type seedSigner struct{ key ed25519.PrivateKey }

func (s seedSigner) LeadSig(inboxPath string, e mailbox.SignedEntry) (string, error) {
	return base64.RawURLEncoding.EncodeToString(ed25519.Sign(s.key, e.Bytes())), nil
}

// The compiler checks that seedSigner is a mailbox.Signer.
var _ mailbox.Signer = seedSigner{}

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "outside:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) != 2 {
		return fmt.Errorf("usage: outside ROOT SEED-HEX")
	}
	root := args[0]
	seed, err := hex.DecodeString(args[1])
	if err != nil || len(seed) != ed25519.SeedSize {
		return fmt.Errorf("seed: want %d bytes in hex, got %q", ed25519.SeedSize, args[1])
	}
	ctx := context.Background()
	lock := lockfile.Options{Timeout: 5 * time.Second}

	t, _, err := team.Create(root, "Outside Team", team.CreateOptions{Description: "made from outside", Now: time.Now()})
	if err != nil {
		return err
	}
	_, err = t.Update(ctx, lock, func(c *team.Config) error {
		c.Members = append(c.Members, team.Member{
			AgentID: team.AgentID("worker", t.Name), Name: "worker",
			JoinedAt: time.Now().UnixMilli(), TmuxPaneID: team.InProcessPaneID,
		})
		// A key of the program's own, kept as Claude Code keeps any key
		// it does not know.
		c.SetExtra("outsideTool", json.RawMessage(`{"version":1}`))
		return nil
	})
	if err != nil {
		return err
	}

	signer := seedSigner{key: ed25519.NewKeyFromSeed(seed)}
	in := mailbox.New(t.InboxPath("worker"), lock).SignedBy(signer)
	err = in.Send(ctx, mailbox.Message{From: team.LeadName, Text: "hello from outside", Summary: "greeting",
		Timestamp: mailbox.Timestamp(time.Now())})
	if err != nil {
		return err
	}

	_, cfg, err := team.Open(root, t.Name)
	if err != nil {
		return err
	}
	var extra bytes.Buffer
	if raw, ok := cfg.Extra("outsideTool"); ok {
		if err := json.Compact(&extra, raw); err != nil {
			return err
		}
	}
	fmt.Printf("team %s: %d members, outsideTool %s\n", cfg.Name, len(cfg.Members), extra.String())
	msgs, err := mailbox.New(t.InboxPath("worker"), lock).ReadAll()
	if err != nil {
		return err
	}
	pub := signer.key.Public().(ed25519.PublicKey)
	for _, m := range msgs {
		sig, err := base64.RawURLEncoding.DecodeString(m.LeadSig)
		verified := err == nil && ed25519.Verify(pub, mailbox.EntryOf(m).Bytes(), sig)
		fmt.Printf("%s -> worker: %q (summary %q, signed %v, verifies %v)\n", m.From, m.Text, m.Summary, m.LeadSig != "", verified)
	}
	return nil
}
