#pragma once
// What the CUDA suites share (chapter 09): skipping without a device, the message of an
// error, and the comparison of a device result with the CPU's.
#include <gtest/gtest.h>

#include <string>

#include "kael/kael.h"

/// Skips the current test on a machine without a CUDA device (scripts/gpu-check fails a
/// run on a GPU machine in which a Cuda* test skipped).
#define KAEL_REQUIRE_GPU()                                                                    \
    do {                                                                                      \
        if (!kael::cuda_is_available()) {                                                     \
            GTEST_SKIP() << "no CUDA device";                                                 \
        }                                                                                     \
    } while (false)

namespace kael::testing {

/// The message of the kael::Error that `f` throws, or "no error".
template <typename F> std::string error_of(F&& f) {
    try {
        f();
    } catch (const Error& error) {
        return error.what();
    }
    return "no error";
}

/// The device result lives on the device and agrees with the host's in shape, dtype and
/// values (NaN equal to NaN); `tolerance` is relative and absolute, for sums that add in
/// another order on the device.
inline void expect_matches_cpu(const Tensor& device_result, const Tensor& host_result, const std::string& what,
                               double tolerance = 1e-6) {
    EXPECT_EQ(device_result.device(), Device::CUDA) << what;
    ASSERT_EQ(device_result.shape(), host_result.shape()) << what;
    EXPECT_EQ(device_result.dtype(), host_result.dtype()) << what;
    EXPECT_TRUE(allclose(device_result.cpu().to(DType::F64), host_result.to(DType::F64), tolerance, tolerance,
                         /*equal_nan=*/true))
        << what << "\ndevice:\n" << device_result.cpu() << "\nhost:\n" << host_result;
}

}  // namespace kael::testing
