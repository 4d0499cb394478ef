#!/usr/bin/env bash
# ctest: cmake --install BUILD into a scratch prefix, build examples/installed against it with
# find_package(panoramix), run the C example and the C++ program on DATA.
set -euo pipefail
build=$1 scratch=$2 data=$3 src=$(cd "$(dirname "$0")" && pwd)
rm -rf "$scratch" && mkdir -p "$scratch"
cmake --install "$build" --prefix "$scratch/prefix" > "$scratch/install.log"
test -f "$scratch/prefix/include/panoramix.hpp" && test -x "$scratch/prefix/bin/panoramix"
# The umbrella header names every installed public header.
for h in $(cd "$scratch/prefix/include" && find panoramix -name '*.hpp' | sort); do
  grep -q "#include \"$h\"" "$scratch/prefix/include/panoramix.hpp" || { echo "panoramix.hpp lacks $h" >&2; exit 1; }
done
cmake -S "$src" -B "$scratch/consumer" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$scratch/prefix" \
      -DEXAMPLE_C="$src/../c/example.c" > "$scratch/configure.log"
cmake --build "$scratch/consumer" > "$scratch/build.log"
LD_LIBRARY_PATH="$scratch/prefix/lib:$scratch/prefix/lib64:${LD_LIBRARY_PATH:-}" "$scratch/consumer/consumer_c" "$data"
"$scratch/consumer/consumer_cxx" "$data" | grep -q "203 samples x 1001 variants"
echo "installed panoramix found and used by an outside project"
