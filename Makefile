# panoramix — top-level entry points.
#   make           install missing Debian packages, configure, build (binary: build/panoramix)
#   make test      install, build, run every test without a GPU
#   make demo      install, build, simulate a dataset, run freq + grm on it
#   make python    install, build the Python package in-tree: PYTHONPATH=build/python python3 -c 'import panoramix'
#   make sanitize  install, build with ASan + UBSan (build-sanitize/, CUDA off), run the tests
BUILD ?= build
JOBS  ?= $(shell nproc)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release

# Debian packages the project needs (build, tests, peers).
DEB_PACKAGES := cmake ninja-build g++ libopenblas-dev liblapack-dev libcli11-dev libgtest-dev \
                libgmock-dev gfortran libopenmpi-dev openmpi-bin libscalapack-openmpi-dev plink1.9 plink2 gemma libsuitesparse-dev libhts-dev libzstd-dev zlib1g-dev libdeflate-dev pkg-config \
                python3-numpy python3-scipy python3-sklearn \
                libboost-math-dev libflint-arb-dev libcairo2-dev fonts-dejavu-core \
                pybind11-dev python3-dev python3-pytest python3-matplotlib python3-venv python3-wheel

.PHONY: all build deps test demo python sanitize clean

all: build

deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja $(CMAKE_FLAGS)

# Every entry point installs what is missing first: a newcomer never meets a CMake error about a
# package (the configure step is a separate target so that it runs after deps).
build: deps
	$(MAKE) $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) -LE cuda

demo: build
	bash tools/demo.sh $(BUILD)/panoramix

# The Python package in $(BUILD)/python/panoramix (compiled module + the files of python/panoramix).
python: deps
	$(MAKE) $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS) --target panoramix_python
	@echo "Python package built: PYTHONPATH=$(CURDIR)/$(BUILD)/python /usr/bin/python3 -c 'import panoramix'"

# ASan + UBSan over the CPU test suite; any report fails the run (halt_on_error, no recovery).
# Leaks inside system libraries (cairo's fonts) are listed in tools/lsan_suppressions.txt.
SANITIZE_BUILD ?= build-sanitize
sanitize: deps
	cmake -S . -B $(SANITIZE_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPMX_SANITIZE=ON -DPMX_CUDA=OFF
	cmake --build $(SANITIZE_BUILD) -j $(JOBS)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tools/lsan_suppressions.txt ctest --test-dir $(SANITIZE_BUILD) --output-on-failure -j $(JOBS) -LE cuda

clean:
	rm -rf $(BUILD) $(SANITIZE_BUILD)
