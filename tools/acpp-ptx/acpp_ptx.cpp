// acpp-ptx: translates the device code of an AdaptiveCpp generic-target object (the HCF that
// `acpp --acpp-targets=generic` embeds) to PTX the way AdaptiveCpp's CUDA runtime JIT does it
// (src/runtime/cuda/cuda_queue.cpp and adaptivity_engine.cpp at 49544a4: the current-backend
// S2IR constant, ptx-version and ptx-target-device, the known work-group size and local memory,
// and the 32-bit sizes flag at adaptivity level 1), so the machine code of Tenor's SYCL kernels
// on an NVIDIA GPU can be read on a machine without one (scripts/sycl-sass, ADR 0025).
//
//   acpp-ptx <unit.hcf> <out.ptx> <work-group size> <sm, e.g. 90>
//
// Exit status 0 on success; 1 with AdaptiveCpp's error log on stderr; 2 on bad arguments.
#include "hipSYCL/common/hcf_container.hpp"
#include "hipSYCL/compiler/llvm-to-backend/LLVMToBackend.hpp"
#include "hipSYCL/compiler/llvm-to-backend/LLVMToBackendTool.hpp"
#include "hipSYCL/compiler/llvm-to-backend/ptx/LLVMToPtxFactory.hpp"

#include <exception>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace tool = hipsycl::compiler::translation_tool;

static int run(int argc, char **argv) {
    if (argc != 5) {
        std::cerr << "usage: acpp-ptx <unit.hcf> <out.ptx> <work-group size> <sm>\n";
        return 2;
    }
    std::ifstream in(argv[1], std::ios::binary);
    if (!in) {
        std::cerr << "acpp-ptx: cannot read " << argv[1] << "\n";
        return 2;
    }
    std::stringstream text;
    text << in.rdbuf();
    hipsycl::common::hcf_container hcf{text.str()};
    std::vector<std::string> kernels;
    auto *images = hcf.root_node()->get_subnode("images");
    auto *image = images ? images->get_subnode("llvm-ir.global") : nullptr;
    if (!tool::getHcfKernelNames(hcf, kernels) || !image || !image->has_binary_data_attached()) {
        std::cerr << "acpp-ptx: " << argv[1] << " holds no generic-target device image\n";
        return 2;
    }
    std::string ir, ptx;
    hcf.get_binary_attachment(image, ir);
    auto translator = hipsycl::compiler::createLLVMToPtxTranslator(kernels);
    const std::string group = argv[3], sm = argv[4];
    // The JIT's own call (glue/llvm-sscp/jit.hpp); with the pinned commit's header this read a
    // dead stack slot unless scripts/install-acpp.d/s2ir-constant-lifetime.patch is applied.
    translator->setS2IRConstant<hipsycl::sycl::jit::current_backend, int>(translator->getBackendId());
    translator->setBuildOption(std::string("ptx-version"), sm);
    translator->setBuildOption(std::string("ptx-target-device"), sm);
    translator->setBuildOption(std::string("known-group-size-x"), group);
    translator->setBuildOption(std::string("known-group-size-y"), std::string("1"));
    translator->setBuildOption(std::string("known-group-size-z"), std::string("1"));
    translator->setBuildOption(std::string("known-local-mem-size"), std::to_string(8 * std::stoul(group)));
    translator->setBuildFlag("global-sizes-fit-in-int");
    if (!translator->fullTransformation(ir, ptx)) {
        for (const auto &e : translator->getErrorLog()) std::cerr << "acpp-ptx: " << e << "\n";
        return 1;
    }
    std::ofstream(argv[2]) << ptx;
    return 0;
}

int main(int argc, char **argv) {
    try {
        return run(argc, argv);
    } catch (const std::exception &e) {
        std::cerr << "acpp-ptx: " << e.what() << "\n";
        return 1;
    }
}
