#!/usr/bin/env bash
# The project's test command (make test, and CI through .ci/run). It uses the PostgreSQL and
# NATS named by DATABASE_URL and NATS_URL, else the machine's own on 127.0.0.1:5432 and :4222,
# else starts throwaway ones (internal/devenv/devservices) and stops them when it ends.
set -euo pipefail
cd "$(dirname "$0")/.."

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

echo "== gofmt and go vet"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change these files:"; echo "$unformatted"; exit 1
fi
go vet ./...

echo "== go mod tidy -diff"
# go.mod and go.sum must be what go mod tidy makes of them: direct dependencies in the direct
# block, none missing, none left over. -diff changes nothing; it prints the edits and fails.
if ! tidy_diff=$(go mod tidy -diff 2>&1); then
  echo "$tidy_diff"
  echo "go.mod or go.sum is not tidy (the diff above is what is wrong): run 'go mod tidy' and commit both files"
  exit 1
fi

# CORROBORATE_TEST_SERVICES=start starts throwaway services even where the machine has its own
# (it is how the fresh-machine path is tried on a machine that runs them).
need_pg=false; need_nats=false
if [ "${CORROBORATE_TEST_SERVICES:-}" = start ]; then
  unset DATABASE_URL NATS_URL; need_pg=true; need_nats=true
fi
if [ -z "${DATABASE_URL:-}" ] && ! port_open 5432; then need_pg=true; fi
if [ -z "${NATS_URL:-}" ] && ! port_open 4222; then need_nats=true; fi
if $need_pg || $need_nats; then
  services_dir=$(mktemp -d /tmp/corroborate-services.XXXXXX)
  chmod 755 "$services_dir"
  echo "== starting throwaway services in $services_dir (postgres: $need_pg, nats: $need_nats)"
  go build -o "$services_dir/devservices" ./internal/devenv/devservices
  "$services_dir/devservices" --dir "$services_dir" --env-file "$services_dir/env" \
    --postgres=$need_pg --nats=$need_nats &
  services_pid=$!
  trap 'kill $services_pid 2>/dev/null; wait $services_pid 2>/dev/null; rm -rf "$services_dir"' EXIT
  for _ in $(seq 1 120); do
    [ -f "$services_dir/env" ] && break
    kill -0 $services_pid 2>/dev/null || { echo "devservices failed to start"; exit 1; }
    sleep 0.5
  done
  # shellcheck disable=SC1091
  source "$services_dir/env"
fi

# The HTML report's browser test (cmd/report) runs in Debian's headless Chromium. Install it when
# missing, once (it stays installed); where there is no apt-get, no root or no network, the test
# skips itself and says so instead of failing.
echo "== chromium for the browser test"
if command -v chromium >/dev/null 2>&1; then
  chromium --version 2>/dev/null || true
elif command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  chromium_log=$(mktemp /tmp/corroborate-chromium-install.XXXXXX)
  if (apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium) >"$chromium_log" 2>&1; then
    echo "installed $(chromium --version 2>/dev/null)"
  else
    tail -n 20 "$chromium_log"
    echo "could not install chromium: TestHTMLReportInHeadlessChromium will be skipped"
  fi
  rm -f "$chromium_log"
else
  echo "no chromium, and no apt-get as root to install it: TestHTMLReportInHeadlessChromium will be skipped"
fi

echo "== go test -race"
go test -race -count=1 -timeout 20m ./...

echo "== short fuzz runs"
fuzz_time=${CORROBORATE_FUZZ_TIME:-5s}
fuzz_retry_execs=${CORROBORATE_FUZZ_RETRY_EXECS:-10000}
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  for target in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //'); do
    echo "-- $pkg $target ($fuzz_time)"
    # A failing input is written to the package's testdata/fuzz and fails every later run; a
    # run that fails without one is the fuzzing engine itself: with a duration budget, Go's fuzz
    # coordinator (go1.26) now and then ends a run with "context deadline exceeded" at the
    # deadline, even on an idle machine (golang/go#75804, fixed in go1.27). The retry runs a
    # count of executions instead, which sets no deadline to race (10,000 take 3 to 10 s here);
    # a written failing input fails it at once.
    if ! out=$(go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzz_time" "$pkg" 2>&1); then
      echo "$out" | grep -v '^fuzz: elapsed' | tail -20 || true
      echo "-- $target failed: trying it once more (${fuzz_retry_execs} executions)"
      if ! out=$(go test -run '^$' -fuzz "^${target}\$" -fuzztime "${fuzz_retry_execs}x" "$pkg" 2>&1); then
        echo "$out" | grep -v '^fuzz: elapsed' | tail -20 || true
        echo "-- $target failed twice"
        exit 1
      fi
    fi
  done
done
echo "== all tests passed"
