# shellcheck shell=bash
# The OpenCL part of scripts/gpu-stacks (issue 13, 13-opencl), also used by scripts/gpu-opencl.
# Sourced; defines the stack_opencl_* hooks gpu-stacks calls:
#   stack_opencl_build        here: the conformance test executable into dist/stacks/
#   stack_opencl_stage DEST   here: that executable and an ICD loader (libOpenCL.so.1 from
#                             Debian's ocl-icd-libopencl1, pinned, which needs only libc) into DEST
#   stack_opencl_env          on the GPU machine: NVIDIA's OpenCL driver as the only ICD
#                             (OCL_ICD_FILENAMES and OCL_ICD_VENDORS; /etc/OpenCL/vendors there
#                             lists only PoCL),
#                             the staged loader (OPENCL_DYLIB_PATH), the GPU as device
#   stack_opencl_steps        on the GPU machine: the conformance suite on NVIDIA's OpenCL with
#                             the default options (native fp32 on NVIDIA); with
#                             TENOR_GPU_STACKS_OPENCL_OPTIONS=1 again with portable fp32 and with
#                             contraction (the build-options question of docs/opencl.md)
STACKS+=(opencl)
FEATURES+=(opencl)
OCL_ICD_DEB_VERSION=2.3.1-1

stack_opencl_build() {
    local exe
    exe=$(cargo test --release -p tenor-opencl --test conformance --no-run --message-format=json 2>/dev/null |
        python3 -c 'import json,sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "conformance":
        print(m["executable"])' | tail -1)
    [[ -n "$exe" ]] || { echo "gpu-stacks opencl: no conformance executable" >&2; return 1; }
    mkdir -p dist/stacks
    cp "$exe" dist/stacks/opencl-test-conformance
}

stack_opencl_stage() {
    local dest=$1 tmp
    mkdir -p "$dest/dist/stacks" "$dest/dist/opencl"
    cp dist/stacks/opencl-test-conformance "$dest/dist/stacks/"
    tmp=$(mktemp -d)
    (cd "$tmp" && apt-get download "ocl-icd-libopencl1=$OCL_ICD_DEB_VERSION" >/dev/null && dpkg -x ./*.deb x) || {
        echo "gpu-stacks opencl: apt-get download ocl-icd-libopencl1=$OCL_ICD_DEB_VERSION failed" >&2
        rm -rf "$tmp"
        return 1
    }
    cp -L "$tmp"/x/usr/lib/x86_64-linux-gnu/libOpenCL.so.1 "$dest/dist/opencl/"
    rm -rf "$tmp"
}

stack_opencl_env() {
    local icd=/usr/local/nvidia/lib64/libnvidia-opencl.so.1 f
    if [[ ! -e $icd ]]; then
        for f in /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1 /usr/local/nvidia/lib/libnvidia-opencl.so.1; do
            [[ -e $f ]] && icd=$f && break
        done
    fi
    echo "opencl: ICD $icd ($(ls -la "$icd" 2>&1 | head -1)); loader $PWD/dist/opencl/libOpenCL.so.1"
    # Both loaders' ways of naming the only implementation: the Khronos loader reads
    # OCL_ICD_FILENAMES, ocl-icd (the staged one, Debian 2.3.1) ignores it and reads
    # OCL_ICD_VENDORS, a folder of .icd files (checked on Intel's CPU runtime: with
    # OCL_ICD_FILENAMES alone ocl-icd finds no platform).
    mkdir -p "$PWD/dist/opencl/vendors"
    echo "$icd" >"$PWD/dist/opencl/vendors/nvidia.icd"
    export OCL_ICD_FILENAMES=$icd OCL_ICD_VENDORS=$PWD/dist/opencl/vendors
    export OPENCL_DYLIB_PATH="$PWD/dist/opencl/libOpenCL.so.1;libOpenCL.so.1"
    export TENOR_OPENCL_DEVICE=${TENOR_OPENCL_DEVICE:-gpu}
}

stack_opencl_steps() {
    # The conformance suite on NVIDIA's OpenCL with the adapter's default build options (native
    # fp32 math on an NVIDIA platform since 2026-12-02, docs/opencl.md). The build-options
    # question (contraction, native fp32) was measured on 2026-12-02 (opencl-h200-2026-12-02);
    # TENOR_GPU_STACKS_OPENCL_OPTIONS=1 repeats it: portable fp32, then contraction.
    step opencl-conformance dist/stacks/opencl-test-conformance --nocapture
    if [[ ${TENOR_GPU_STACKS_OPENCL_OPTIONS:-0} == 1 ]]; then
        step opencl-conformance-portable-f32 env TENOR_OPENCL_NATIVE_F32=0 \
            dist/stacks/opencl-test-conformance --nocapture
        step opencl-conformance-contract env TENOR_OPENCL_BUILD_OPTIONS="-DTENOR_FP_CONTRACT -cl-mad-enable" \
            dist/stacks/opencl-test-conformance --nocapture
    fi
}
