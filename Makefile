# panoramix — top-level entry points.
#   make        configure + build (binary: build/panoramix)
#   make test   install missing Debian packages, build, run every test
#   make demo   install, build, simulate a dataset, run freq + grm on it
BUILD ?= build
JOBS  ?= $(shell nproc)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release

# Debian packages the project needs (build, tests, peers).
DEB_PACKAGES := cmake ninja-build g++ libopenblas-dev liblapack-dev libcli11-dev libgtest-dev \
                libgmock-dev gfortran plink1.9 plink2 gemma libsuitesparse-dev

.PHONY: all build deps test demo clean

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

build: $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

test: deps
	$(MAKE) build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) -LE cuda

demo: deps
	$(MAKE) build
	bash tools/demo.sh $(BUILD)/panoramix

clean:
	rm -rf $(BUILD)
