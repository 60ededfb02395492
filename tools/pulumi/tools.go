//go:build tools

// Package tools pins the Pulumi CLI's main package, so go.sum holds every
// module it builds from.
package tools

import _ "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi"
