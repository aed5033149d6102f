#include "kael/device.h"

#include "core/device_backend.h"

namespace kael {

Device parse_device(std::string_view name) {
    const bool is_cpu = name == "cpu";
    const bool is_cuda = name == "cuda" || name == "cuda:0";
    KAEL_CHECK_VALUE(is_cpu || is_cuda,
                     "unknown device '" << name << "', expected 'cpu' or 'cuda'");
    return is_cpu ? Device::CPU : Device::CUDA;
}

bool cuda_is_available() { return device::is_available(); }
//> stage 10

bool cuda_is_built() { return device::is_built(); }

void check_same_device(Device expected, Device found) {
    KAEL_CHECK(found == expected, "expected all tensors to be on the same device, but found at least two devices, "
                                      << expected << " and " << found);
}
//< stage 10

void cuda_synchronize() { device::synchronize(); }

}  // namespace kael
