// The CUDA backend (chapter 09). Tests of a device skip without one (GTEST_SKIP), so a CPU
// machine passes them while compiling everything; scripts/gpu-check runs them for real.
// Tests of the errors a machine without a device gives run where there is none.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>

#include "kael/kael.h"

namespace {

using kael::Device;
using kael::DType;
using kael::Tensor;

#define KAEL_REQUIRE_GPU()                                                                    \
    do {                                                                                      \
        if (!kael::cuda_is_available()) {                                                     \
            GTEST_SKIP() << "no CUDA device";                                                 \
        }                                                                                     \
    } while (false)

// The message of the kael::Error that `f` throws, or "no error".
template <typename F> std::string error_of(F&& f) {
    try {
        f();
    } catch (const kael::Error& error) {
        return error.what();
    }
    return "no error";
}

// Same shape, dtype and values, NaN equal to NaN: what a copy must preserve exactly.
bool same(const Tensor& a, const Tensor& b) {
    return a.shape() == b.shape() && a.dtype() == b.dtype() &&
           kael::allclose(a.to(DType::F64), b.to(DType::F64), /*rtol=*/0.0, /*atol=*/0.0, /*equal_nan=*/true);
}

// ---- without a device ------------------------------------------------------------------

TEST(CudaWithoutDevice, EveryDeviceRequestFailsWithAClearError) {
    if (kael::cuda_is_available()) {
        GTEST_SKIP() << "a CUDA device is present";
    }
    const std::string expected =
        kael::cuda_is_built() ? "no CUDA device is available" : "kael was built without CUDA";
    for (const std::string& message :
         {error_of([] { (void)kael::zeros({3}, DType::F32, Device::CUDA); }),
          error_of([] { (void)kael::ones({2, 2}).cuda(); }),
          error_of([] { kael::cuda_synchronize(); })}) {
        EXPECT_NE(message.find(expected), std::string::npos) << message;
    }
    // A zero-element tensor needs neither memory nor a kernel, so it exists even here.
    EXPECT_EQ(kael::empty({0}, DType::F32, Device::CUDA).numel(), 0);
}

TEST(CudaWithoutDevice, DeviceNamesBeyondTheOneGpuAreRefused) {
    EXPECT_EQ(kael::parse_device("cuda:0"), Device::CUDA);
    EXPECT_THROW((void)kael::parse_device("cuda:1"), kael::ValueError);
    EXPECT_THROW((void)kael::parse_device("gpu"), kael::ValueError);
}

// ---- on a device -----------------------------------------------------------------------

TEST(CudaMemory, HostToDeviceToHostKeepsEveryDtype) {
    KAEL_REQUIRE_GPU();
    for (const DType dtype : {DType::F32, DType::F64, DType::I64, DType::Bool}) {
        const Tensor host = kael::remainder(kael::arange(0, 1000), 7).to(dtype);
        const Tensor device = host.cuda();
        EXPECT_EQ(device.device(), Device::CUDA);
        EXPECT_EQ(device.dtype(), dtype);
        EXPECT_TRUE(same(device.cpu(), host)) << kael::to_string(dtype);
    }
}

TEST(CudaMemory, FillWritesEveryElementOfEveryDtype) {
    KAEL_REQUIRE_GPU();
    // 100,003 elements: more than one block, and not a multiple of the block size.
    EXPECT_TRUE(same(kael::full({100003}, 2.5, DType::F32, Device::CUDA).cpu(),
                            kael::full({100003}, 2.5, DType::F32)));
    EXPECT_TRUE(same(kael::full({7, 3}, -4, DType::I64, Device::CUDA).cpu(),
                            kael::full({7, 3}, -4, DType::I64)));
    EXPECT_TRUE(same(kael::ones({5}, DType::Bool, Device::CUDA).cpu(), kael::ones({5}, DType::Bool)));
    EXPECT_TRUE(same(kael::zeros({4}, DType::F64, Device::CUDA).cpu(), kael::zeros({4}, DType::F64)));
}

TEST(CudaMemory, StridedViewsCopyInRowMajorOrder) {
    KAEL_REQUIRE_GPU();
    const Tensor host = kael::randn({4, 6, 5});
    const Tensor device = host.cuda();
    const Tensor view = device.permute({2, 0, 1}).slice(2, 1, 6, 2);  // not contiguous
    ASSERT_FALSE(view.is_contiguous());
    const Tensor expected = host.permute({2, 0, 1}).slice(2, 1, 6, 2).contiguous();
    EXPECT_TRUE(same(view.contiguous().cpu(), expected));
    EXPECT_TRUE(same(view.clone().cpu(), expected));
    EXPECT_TRUE(same(view.cpu(), expected));  // to(CPU) makes it contiguous first
    EXPECT_TRUE(same(device.expand({2, 4, 6, 5}).contiguous().cpu(), host.expand({2, 4, 6, 5}).contiguous()));
}

TEST(CudaMemory, DtypeConversionOnTheDeviceSaturatesAsOnTheHost) {
    KAEL_REQUIRE_GPU();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    const Tensor host = kael::from_vector<double>({1e30, -inf, nan, -2.75, 2.75, 0.0}, {6});
    for (const DType target : {DType::I64, DType::F32, DType::Bool}) {
        const Tensor on_device = host.cuda().to(target);
        EXPECT_EQ(on_device.device(), Device::CUDA);
        EXPECT_TRUE(same(on_device.cpu(), host.to(target))) << kael::to_string(target);
    }
}

TEST(CudaMemory, ItemCopiesAndDataPtrRefuses) {
    KAEL_REQUIRE_GPU();
    const Tensor t = kael::full({1}, 3.5, DType::F32, Device::CUDA);
    EXPECT_EQ(t.item<float>(), 3.5F);
    EXPECT_EQ(t.item(), 3.5);
    EXPECT_THROW((void)t.data_ptr<float>(), kael::Error);
    EXPECT_THROW((void)t.at<float>({0}), kael::Error);
    std::ostringstream text;
    text << t;
    EXPECT_NE(text.str().find("device=cuda"), std::string::npos) << text.str();
}

TEST(CudaMemory, MoveKeepsTheTensorsIdentity) {
    KAEL_REQUIRE_GPU();
    Tensor t = kael::arange(0, 6).view({2, 3});
    const Tensor alias = t;
    t.move_to_(Device::CUDA);
    EXPECT_EQ(alias.device(), Device::CUDA);  // one impl: every handle moved
    t.move_to_(Device::CPU);
    EXPECT_TRUE(same(alias, kael::arange(0, 6).view({2, 3})));
}

TEST(CudaAllocator, FreedDeviceBlocksAreReusedAndCanBeReleased) {
    KAEL_REQUIRE_GPU();
    if (!kael::caching_allocator_enabled()) {
        GTEST_SKIP() << "the caching allocator is off";
    }
    kael::empty_cache(Device::CUDA);
    const kael::AllocatorStats before = kael::allocator_stats(Device::CUDA);
    { const Tensor first = kael::empty({1 << 20}, DType::F32, Device::CUDA); }
    const kael::AllocatorStats cached = kael::allocator_stats(Device::CUDA);
    EXPECT_EQ(cached.cached_bytes, before.cached_bytes + (4 << 20));
    { const Tensor second = kael::empty({1 << 20}, DType::F32, Device::CUDA); }
    EXPECT_EQ(kael::allocator_stats(Device::CUDA).hits, cached.hits + 1);
    kael::empty_cache(Device::CUDA);
    EXPECT_EQ(kael::allocator_stats(Device::CUDA).cached_bytes, 0);
}

TEST(CudaAllocator, OutOfMemoryIsATypedErrorAndLeavesTheDeviceUsable) {
    KAEL_REQUIRE_GPU();
    // 2^50 bytes (a pebibyte) is more than any GPU has.
    const std::string message = error_of([] { (void)kael::empty({std::int64_t{1} << 48}, DType::F32, Device::CUDA); });
    EXPECT_NE(message.find("out of memory"), std::string::npos) << message;
    EXPECT_TRUE(same(kael::ones({3}, DType::F32, Device::CUDA).cpu(), kael::ones({3})));
}

TEST(CudaDevices, MixingDevicesInOneOperationIsAnError) {
    KAEL_REQUIRE_GPU();
    const std::string message = error_of([] { (void)(kael::ones({3}) + kael::ones({3}, DType::F32, Device::CUDA)); });
    EXPECT_NE(message.find("cpu"), std::string::npos) << message;
    EXPECT_NE(message.find("cuda"), std::string::npos) << message;
}

}  // namespace
