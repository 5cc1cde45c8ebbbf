#!/usr/bin/env bash
# Builds libtenor_trace.so (and, with --test, the fake libcuda/libcudart and the test program
# that tests/preload.rs records) into OUT_DIR. Needs gcc only.
#   tools/trace/build.sh OUT_DIR [--test]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: tools/trace/build.sh OUT_DIR [--test]}
mkdir -p "$out"
cc=${CC:-gcc}
flags=(-O2 -Wall -Wextra -Werror -fPIC)
"$cc" "${flags[@]}" -shared -o "$out/libtenor_trace.so" "$here/tenor_trace.c" -ldl -lpthread
if [[ ${2:-} == --test ]]; then
    "$cc" "${flags[@]}" -shared -o "$out/libcuda.so.1" -Wl,-soname,libcuda.so.1 -Wl,-Bsymbolic "$here/test/fake_cuda.c"
    "$cc" "${flags[@]}" -shared -o "$out/libcudart.so" "$here/test/fake_cudart.c" -ldl
    "$cc" "${flags[@]}" -o "$out/prog" "$here/test/prog.c" -L"$out" -lcudart -ldl -lpthread -Wl,-rpath,"$out"
fi
