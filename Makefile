.PHONY: test demo build

# The test command: gofmt, go vet, go test -race on real PostgreSQL and NATS (started when they
# are not running), and short fuzz runs.
test:
	bash scripts/test.sh

# The whole system on embedded defaults: in-process NATS, a throwaway PostgreSQL, the bundled
# example statements, the workers until idle, the results printed.
demo:
	go run ./cmd/worker demo

build:
	go build -o bin/ ./cmd/...
