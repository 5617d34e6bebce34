// Package cove holds the four Chain-of-Verification variants of the specification (Factored,
// Joint, Two-step, Factor + revise), closed-book: draft, plan verification questions, answer them
// and revise, with the parsers of their line-format replies.
package cove
