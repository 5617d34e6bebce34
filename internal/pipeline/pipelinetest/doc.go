// Package pipelinetest holds what the tests of the pipeline packages share: a stub model, a stub
// searcher, golden-file comparison and hostile verification queries. Only tests import it.
package pipelinetest
