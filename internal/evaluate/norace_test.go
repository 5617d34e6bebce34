//go:build !race

package evaluate

// raceDetector is true when the tests run under the race detector.
const raceDetector = false
