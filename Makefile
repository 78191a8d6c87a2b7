# PushBus: `make run` and `make test` do all set-up on a fresh Debian machine with Swift.
SWIFT ?= swift
JOBS ?= 2
ARGS ?=

.PHONY: deps test-deps build release run test bench fuzz clean

deps:
	@./Tools/install-deps.sh

test-deps:
	@./Tools/install-deps.sh --test

build: deps
	$(SWIFT) build -j $(JOBS)

release: deps
	$(SWIFT) build -c release -j $(JOBS)

# Runs the gateway and every service in the foreground; Ctrl-C stops them all.
run: release
	.build/release/pushbus $(ARGS)

# The whole suite: deploy/ checks, unit tests, then integration tests against the real executables.
# Serially (--no-parallel): the load, crash and fuzz tests would otherwise skew the timing of others.
test: test-deps
	$(SWIFT) build --build-tests -j $(JOBS)
	./Tools/validate-deploy.sh .build/debug
	$(SWIFT) test --skip-build --no-parallel

# Benchmarks (never part of `make test`); figures and commands in docs/benchmarks.md.
bench: release
	@./Tools/install-deps.sh --bench
	./Tools/bench-push.sh
	./Tools/bench-api.sh
	./Tools/bench-edge.sh
	./Tools/bench-sdk.sh
	./Tools/bench-channel.sh
	./Tools/bench-stack.sh
	./Tools/bench-allocations.sh
	./Tools/bench-instructions.sh
	./Tools/bench-platform.sh
	.build/release/bench-tagging
	.build/release/bench-badge
	.build/release/bench-scheduler
	.build/release/bench-calendar
	.build/release/bench-analytics

# libFuzzer (with AddressSanitizer) on the frame and payload decoders, for a bounded time.
fuzz: deps
	./Tools/fuzz.sh 60

clean:
	rm -rf .build
