# scripts/gpu-stacks part: SYCL through AdaptiveCpp (docs/sycl.md, ADR 0018). Sourced by
# scripts/gpu-stacks; see its header for the hooks.
STACKS+=(sycl)
FEATURES+=(sycl)

stack_sycl_build() {
    local root
    root=$(scripts/install-acpp | tail -1)
    export TENOR_SYCL_IMPL=acpp TENOR_ACPP_ROOT=$root TENOR_ACPP_TARGETS=generic
}

# After the main build: the AOT-vs-JIT comparison program (adapters/sycl/benches/acpp_targets.cpp)
# linked with the fused Monte Carlo kernels' units, once for the generic target (the objects the
# build just made) and once compiled ahead of time for sm_90 (no JIT, no libLLVM on the device).
# When AdaptiveCpp cannot build the sm_90 one, the reason goes into
# dist/stacks/acpp-targets-sm90.failed and the run reports it.
stack_sycl_after_build() {
    local units aot k f srcs=() objs=() jobs=()
    units=$(dirname "$TENOR_ACPP_ROOT")/units
    aot=$(dirname "$TENOR_ACPP_ROOT")/cuda-aot
    for k in mc_european mc_european_f32 mc_asian mc_asian_f32; do
        # shellcheck disable=SC2012
        f=$(ls -t "$units" | grep -E "^${k}_[0-9a-f]{16}\.cpp$" | head -1)
        srcs+=("$units/$f")
        objs+=("$units/${f%.cpp}-$(stem_tag generic).o")
    done
    "$TENOR_ACPP_ROOT/bin/acpp" -O3 -std=c++17 --acpp-targets=generic -DTENOR_ACPP_BENCH_TARGET='"generic"' \
        adapters/sycl/benches/acpp_targets.cpp "${objs[@]}" -o dist/stacks/acpp-targets-generic
    # The same units with SYCL's portable math built-ins on PTX too (-DTENOR_SYCL_PORTABLE_MATH,
    # kernels/common/prelude.hpp): what NVIDIA's math library is worth under the generic target.
    "$TENOR_ACPP_ROOT/bin/acpp" -O3 -std=c++17 --acpp-targets=generic -DTENOR_SYCL_PORTABLE_MATH \
        -DTENOR_ACPP_BENCH_TARGET='"generic-portable-math"' \
        adapters/sycl/benches/acpp_targets.cpp "${srcs[@]}" -o dist/stacks/acpp-targets-generic-portable
    rm -f dist/stacks/acpp-targets-sm90 dist/stacks/acpp-targets-sm90.failed
    local tmp
    tmp=$(mktemp -d)
    if "$TENOR_ACPP_ROOT/bin/acpp" -O3 -std=c++17 --acpp-targets=cuda:sm_90 --acpp-cuda-path="$aot/root" \
        -I"$aot/compat" -I"$aot/cccl/include" -Wno-unknown-cuda-version -DTENOR_ACPP_BENCH_TARGET='"cuda:sm_90"' \
        adapters/sycl/benches/acpp_targets.cpp "${srcs[@]}" -o dist/stacks/acpp-targets-sm90 >"$tmp/log" 2>&1; then
        echo "gpu-stacks: acpp-targets-sm90 built" >&2
    else
        grep -E "error" "$tmp/log" | head -40 >dist/stacks/acpp-targets-sm90.failed
        echo "gpu-stacks: the cuda:sm_90 build failed, see dist/stacks/acpp-targets-sm90.failed" >&2
    fi
    rm -rf "$tmp"
}

# The target tag in unit object names (build.rs: FNV-1a of the target list, low 32 bits).
stem_tag() {
    python3 -c 'import sys
h = 0xcbf29ce484222325
for b in sys.argv[1].encode():
    h = ((h ^ b) * 0x100000001b3) % (1 << 64)
print(f"{h & 0xffffffff:08x}")' "$1"
}

# Libraries a shared object needs that an Ubuntu 24.04 machine without LLVM lacks: everything
# ldd resolves except the C runtime, libstdc++/libgcc and the CUDA driver.
_acpp_deps() {
    ldd "$@" 2>/dev/null | awk '/=> \//{print $3}' | sort -u |
        grep -vE '/(libc|libm|libpthread|libdl|librt|libstdc\+\+|libgcc_s|ld-linux-x86-64|libcuda|libcudart|libacpp-[a-z]+)\.so'
}

stack_sycl_stage() {
    local dest=$1 root tmp cache
    root=$(scripts/install-acpp | tail -1)
    cache=$(dirname "$root")
    tmp=$(mktemp -d)
    mkdir -p "$tmp/acpp/prefix" "$tmp/acpp/llvm" "$tmp/acpp/libdevice"
    cp -a "$root/lib" "$root/etc" "$tmp/acpp/prefix/"
    mkdir -p "$tmp/acpp/prefix/bin"
    cp "$root/bin/acpp-info" "$tmp/acpp/prefix/bin/" 2>/dev/null || true
    # shellcheck disable=SC2046
    for l in $(_acpp_deps $(find "$root/lib" -name '*.so*' -type f) "$root/bin/acpp-info" dist/stacks/tenor dist/stacks/acpp-targets-*); do
        cp -L "$l" "$tmp/acpp/llvm/"
    done
    cp "$cache"/cuda/nvidia/cu13/nvvm/libdevice/libdevice*.bc "$tmp/acpp/libdevice/"
    # The JIT reads libdevice under the CUDA path compiled into it (HIPSYCL_CUDA_PATH).
    echo "$cache/cuda/nvidia/cu13" >"$tmp/acpp/cuda-path.txt"
    # The in-house sample's SYCL source, compiled by acpp here (the GPU machine has no compiler)
    # into the kernel cache the adapter reads: the same unit the GPU run asks for, same hash.
    TENOR_SYCL_DEVICE=cpu ACPP_VISIBILITY_MASK=omp TENOR_ACPP_KERNEL_CACHE="$tmp/acpp/kernels" \
        dist/stacks/tenor pilot kernel examples/inhouse/bs_batch --backends sycl --out "$tmp/inhouse-cpu" >&2 ||
        echo "gpu-stacks: the in-house kernel did not build on the host's SYCL CPU device" >&2
    rm -f "$tmp"/acpp/kernels/*.tmp.so
    tar -cf - -C "$tmp" acpp | xz "-${TENOR_XZ_LEVEL:-9}" -T2 >"$dest/acpp.tar.xz"
    du -sh "$tmp/acpp" "$dest/acpp.tar.xz" >&2
    rm -rf "$tmp"
}

stack_sycl_env() {
    tar -xJf acpp.tar.xz -C "$W"
    local A=$W/acpp cuda_path
    export LD_LIBRARY_PATH=$A/prefix/lib:$A/llvm:$LD_LIBRARY_PATH
    export XDG_DATA_HOME=$W/xdg TENOR_ACPP_KERNEL_CACHE=$A/kernels TENOR_SYCL_DEVICE=${TENOR_SYCL_DEVICE:-gpu}
    cuda_path=$(cat "$A/cuda-path.txt")
    if mkdir -p "$cuda_path/nvvm/libdevice" 2>/dev/null && cp "$A"/libdevice/*.bc "$cuda_path/nvvm/libdevice/"; then
        echo "sycl: libdevice placed at $cuda_path/nvvm/libdevice (the JIT's compiled-in CUDA path)"
    else
        echo "sycl: cannot create $cuda_path/nvvm/libdevice: the generic target's JIT will not find libdevice"
    fi
    "$A/prefix/bin/acpp-info" -l >"$W/acpp-info.txt" 2>&1 || true
    echo "sycl: acpp-info -l"
    grep -iE "device [0-9]|name|backend" "$W/acpp-info.txt" | head -12
}

stack_sycl_steps() {
    # Ahead-of-time sm_90 against the generic JIT on the fused Monte Carlo kernels: cold (first
    # launch, the JIT included for generic) and warm, one JSON line per kernel.
    step acpp-targets-generic sh -c "dist/stacks/acpp-targets-generic >'$W/acpp-targets-generic.jsonl'"
    if [[ -x dist/stacks/acpp-targets-generic-portable ]]; then
        step acpp-targets-generic-portable sh -c \
            "dist/stacks/acpp-targets-generic-portable >'$W/acpp-targets-generic-portable.jsonl'"
    fi
    if [[ -x dist/stacks/acpp-targets-sm90 ]]; then
        step acpp-targets-sm90 sh -c "dist/stacks/acpp-targets-sm90 >'$W/acpp-targets-sm90.jsonl'"
    else
        echo "=== acpp-targets-sm90: not built: $(head -5 dist/stacks/acpp-targets-sm90.failed 2>/dev/null)"
    fi
    cat "$W"/acpp-targets-*.jsonl 2>/dev/null
    # Generated code: the PTX the JIT wrote into AdaptiveCpp's kernel cache, the cubins NVRTC
    # wrote into Tenor's CUDA cache, and SASS and resource usage where the device has the tools.
    mkdir -p "$W/code/sycl-ptx" "$W/code/cuda-cubin" "$W/code/sass"
    find "$W/xdg" -type f -size +1k -exec cp {} "$W/code/sycl-ptx/" \; 2>/dev/null
    cp "$TENOR_CUDA_CACHE"/*mc_* "$W/code/cuda-cubin/" 2>/dev/null
    ls /usr/local/cuda/bin >"$W/code/cuda-bin.txt" 2>&1
    local bin=/usr/local/cuda/bin f
    for f in "$W"/code/sycl-ptx/*; do
        [[ -f $f ]] || continue
        if grep -q "^.version" "$f" 2>/dev/null && [[ -x $bin/ptxas ]]; then
            "$bin/ptxas" -arch=sm_90 -O3 -v "$f" -o "$f.cubin" >"$f.ptxas.txt" 2>&1
        fi
    done
    if [[ -x $bin/cuobjdump ]]; then
        for f in "$W"/code/cuda-cubin/* "$W"/code/sycl-ptx/*.cubin; do
            [[ -f $f ]] || continue
            "$bin/cuobjdump" -res-usage "$f" >"$W/code/sass/$(basename "$f").res.txt" 2>&1
            "$bin/cuobjdump" -sass "$f" >"$W/code/sass/$(basename "$f").sass" 2>&1
        done
    fi
    echo "=== code: $(find "$W/code" -type f | wc -l) files (sycl PTX, cuda cubins, SASS/resource usage where the tools exist)"
    grep -h "Used [0-9]* registers" "$W"/code/sycl-ptx/*.ptxas.txt 2>/dev/null | sort | uniq -c | head -20
    grep -h "REG:" "$W"/code/sass/*.res.txt 2>/dev/null | head -40
    stack_sycl_profile
}

# Nsight Compute on both stacks' fused Monte Carlo kernels, when the device has ncu and the run
# has time left (TENOR_GPU_STACKS_NCU_BEFORE, default 330 s since the start): SYCL's through
# acpp-targets-generic at 2^26 European and 2^20 Asian pairs (its 4 kernels, 8 launches each),
# CUDA's by CuPy launching the cubins NVRTC wrote into Tenor's CUDA kernel cache during the
# pilot (ncu_cuda.py, same geometry and arguments). Per launch: duration, instructions
# executed, registers, achieved occupancy, SM throughput and the fp64 and transcendental
# (XU) pipes' use; the raw CSVs go to code/ncu-*.csv. If a metric is unknown to this ncu the
# SpeedOfLight section alone is taken.
stack_sycl_profile() {
    local ncu=/usr/local/cuda/bin/ncu m
    if [[ ! -x $ncu ]]; then
        echo "=== ncu: not on this machine"
        return 0
    fi
    if [[ $(since_start) -ge ${TENOR_GPU_STACKS_NCU_BEFORE:-330} ]]; then
        echo "=== ncu: skipped, $(since_start) s already spent"
        return 0
    fi
    m=gpu__time_duration.sum,smsp__inst_executed.sum,launch__registers_per_thread
    m=$m,sm__warps_active.avg.pct_of_peak_sustained_active,sm__throughput.avg.pct_of_peak_sustained_elapsed
    m=$m,sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active
    ncu_both() { # extra ncu options...
        timeout 120 "$ncu" --csv --page raw "$@" --launch-count 32 dist/stacks/acpp-targets-generic 67108864 1048576 \
            >"$W/code/ncu-sycl.csv" 2>"$W/code/ncu-sycl.err" &&
            timeout 90 "$ncu" --csv --page raw "$@" --launch-count 8 python3 scripts/gpu-stacks.d/ncu_cuda.py \
                "$TENOR_CUDA_CACHE" 67108864 1048576 >"$W/code/ncu-cuda.csv" 2>"$W/code/ncu-cuda.err"
    }
    if ! step ncu ncu_both --metrics "$m"; then
        step ncu-speed-of-light ncu_both --section SpeedOfLight
    fi
    tail -3 "$W"/code/ncu-*.err 2>/dev/null
    python3 - "$W/code" <<'NCU' || true
import csv, os, sys
d = sys.argv[1]
for stack in ("sycl", "cuda"):
    p = os.path.join(d, f"ncu-{stack}.csv")
    if not os.path.isfile(p):
        continue
    rows = [r for r in csv.reader(l for l in open(p) if l.startswith('"'))]
    if len(rows) < 3:
        print(f"ncu {stack}: no rows")
        continue
    head = rows[0]
    keep = [i for i, h in enumerate(head) if h in ("Kernel Name", "gpu__time_duration.sum", "smsp__inst_executed.sum",
            "launch__registers_per_thread", "sm__warps_active.avg.pct_of_peak_sustained_active",
            "sm__throughput.avg.pct_of_peak_sustained_elapsed", "sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active",
            "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active")]
    print(f"ncu {stack}: " + " | ".join(head[i] for i in keep))
    for r in rows[2:]:
        print(f"ncu {stack}: " + " | ".join(r[i][:60] for i in keep))
NCU
}
