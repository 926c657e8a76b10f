// Package docs holds the repository's design notes (the Markdown files
// beside this one) and the test that keeps code comments citing only
// documents the repository has. It has no code.
package docs
