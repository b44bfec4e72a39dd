# A thin wrapper over the CMake presets (CMakePresets.json). `make build` leaves build/safesh.
.PHONY: build test test-release test-asan asan build-fuzz fuzz fuzz-smoke bench demo format check-format clean

JOBS ?= $(shell nproc)
FUZZ_SECONDS ?= 600

build:
	cmake --preset release >/dev/null
	cmake --build --preset release -j $(JOBS)

# Every test: the release build, the ASan+UBSan build, and a short fuzzing run.
test: test-release test-asan fuzz-smoke

test-release: build
	ctest --preset release

asan:
	cmake --preset asan >/dev/null
	cmake --build --preset asan -j $(JOBS)

test-asan: asan
	ctest --preset asan

build-fuzz:
	cmake --preset fuzz >/dev/null
	cmake --build --preset fuzz -j $(JOBS)

# A 10-minute libFuzzer run of each fuzzer: the parser, then the policy (FUZZ_SECONDS to change).
fuzz: build-fuzz
	fuzz/run build-fuzz $(FUZZ_SECONDS) parse
	fuzz/run build-fuzz $(FUZZ_SECONDS) policy

# The same fuzzers for one minute each, as part of `make test`.
fuzz-smoke: build-fuzz
	fuzz/run build-fuzz 60 parse
	fuzz/run build-fuzz 60 policy

# The performance suite side by side with bash -n, shfmt, a bare bwrap, srt and cat; writes the
# table of docs/performance.md (bench/suite.sh; BENCH_FLAGS=--quick for fewer runs).
bench: build
	SAFESH_BENCH_COMMAND="make bench$(if $(BENCH_FLAGS), BENCH_FLAGS=$(BENCH_FLAGS))" \
	  bench/suite.sh $(BENCH_FLAGS)

demo: build
	build/safesh demo
	scripts/examples

format:
	clang-format -i $$(git ls-files '*.cc' '*.h')

check-format:
	clang-format --dry-run -Werror $$(git ls-files '*.cc' '*.h')

clean:
	rm -rf build build-debug build-asan build-fuzz
