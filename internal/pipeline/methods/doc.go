// Package methods is the one registry of verification methods: the names a job may give
// (Names) and the one constructor from a name and its dependencies (New).
package methods
