// The CUDA backend (chapter 09). Tests of a device skip without one (GTEST_SKIP), so a CPU
// machine passes them while compiling everything; scripts/gpu-check runs them for real.
// Tests of the errors a machine without a device gives run where there is none.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cuda_helpers.h"
#include "kael/kael.h"

namespace {

using kael::Device;
using kael::DType;
using kael::Tensor;
using kael::autograd::NoGradGuard;

using kael::testing::error_of;
using kael::testing::expect_matches_cpu;

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

// ---- element-wise operations on a device ------------------------------------------------

// Operand pairs in the layouts the iterator distinguishes: contiguous, transposed,
// broadcast against each other, and a strided slice.
std::vector<std::pair<Tensor, Tensor>> operand_layouts(DType dtype) {
    kael::manual_seed(7);
    const auto values = [&](const kael::Shape& shape) {
        return dtype == DType::I64 ? kael::randint(-50, 50, shape) : kael::randn(shape, dtype);
    };
    return {
        {values({6, 5}), values({6, 5})},
        {values({5, 6}).transpose(0, 1), values({6, 5})},
        {values({6, 1}), values({1, 5})},
        {values({6, 10}).slice(1, 0, 10, 2), values({5})},
        {values({}), values({3, 4})},
    };
}

TEST(CudaElementwise, BinaryOperationsMatchTheCpuInEveryLayout) {
    KAEL_REQUIRE_GPU();
    using Op = Tensor (*)(const Tensor&, const Tensor&);
    const std::vector<std::pair<std::string, Op>> ops = {
        {"add", [](const Tensor& a, const Tensor& b) { return kael::add(a, b); }},
        {"add alpha", [](const Tensor& a, const Tensor& b) { return kael::add(a, b, 3); }},
        {"sub alpha", [](const Tensor& a, const Tensor& b) { return kael::sub(a, b, 2); }},
        {"mul", [](const Tensor& a, const Tensor& b) { return kael::mul(a, b); }},
        {"div", [](const Tensor& a, const Tensor& b) { return kael::div(a, b); }},
        {"maximum", [](const Tensor& a, const Tensor& b) { return kael::maximum(a, b); }},
        {"minimum", [](const Tensor& a, const Tensor& b) { return kael::minimum(a, b); }},
    };
    for (const DType dtype : {DType::F32, DType::F64, DType::I64}) {
        int layout = 0;
        for (const auto& [a, b] : operand_layouts(dtype)) {
            for (const auto& [name, op] : ops) {
                expect_matches_cpu(op(a.cuda(), b.cuda()), op(a, b),
                                   name + " " + std::string(kael::to_string(dtype)) + " layout " + std::to_string(layout));
            }
            ++layout;
        }
    }
}

TEST(CudaElementwise, NumbersOnEitherSideMatchTheCpu) {
    KAEL_REQUIRE_GPU();
    const Tensor x = kael::randn({4, 7}).transpose(0, 1);
    const Tensor d = x.cuda();
    expect_matches_cpu(kael::add(d, 2.5), kael::add(x, 2.5), "t + 2.5");
    expect_matches_cpu(kael::add(d, 2.5, -2), kael::add(x, 2.5, -2), "t + (-2) * 2.5");
    expect_matches_cpu(kael::sub(d, 3, 2), kael::sub(x, 3, 2), "t - 2 * 3");
    expect_matches_cpu(kael::sub(3, d, 2), kael::sub(3, x, 2), "3 - 2 * t");
    expect_matches_cpu(kael::mul(d, -1.5), kael::mul(x, -1.5), "t * -1.5");
    expect_matches_cpu(kael::div(d, 4), kael::div(x, 4), "t / 4");
    expect_matches_cpu(kael::div(2, d), kael::div(2, x), "2 / t");
    // Type promotion is the operation's, before the kernel: int64 and a float number give
    // float32, integer division gives float32.
    const Tensor n = kael::randint(1, 9, {5});
    expect_matches_cpu(kael::mul(n.cuda(), 0.5), kael::mul(n, 0.5), "int64 * 0.5");
    expect_matches_cpu(kael::div(n.cuda(), n.cuda()), kael::div(n, n), "int64 / int64");
    expect_matches_cpu(kael::add(n.cuda(), kael::randn({5}).cuda()), kael::add(n, kael::randn({5})), "promotion");
}

TEST(CudaElementwise, BoolAndIntegerRulesAreTheCpus) {
    KAEL_REQUIRE_GPU();
    const Tensor p = kael::from_vector<double>({0, 1, 0, 1}, {4}).to(DType::Bool);
    const Tensor q = kael::from_vector<double>({0, 0, 1, 1}, {4}).to(DType::Bool);
    expect_matches_cpu(kael::add(p.cuda(), q.cuda()), kael::add(p, q), "bool add is or");
    expect_matches_cpu(kael::mul(p.cuda(), q.cuda()), kael::mul(p, q), "bool mul is and");
    EXPECT_THROW((void)kael::sub(p.cuda(), q.cuda()), kael::TypeError);
    EXPECT_THROW((void)kael::neg(p.cuda()), kael::TypeError);
    const std::int64_t big = std::numeric_limits<std::int64_t>::max();
    const Tensor wrap = kael::full({3}, big, DType::I64);
    expect_matches_cpu(kael::add(wrap.cuda(), 1), kael::add(wrap, 1), "int64 wraps around");
}

TEST(CudaElementwise, UnaryFunctionsMatchTheCpu) {
    KAEL_REQUIRE_GPU();
    using Op = Tensor (*)(const Tensor&);
    const std::vector<std::pair<std::string, Op>> ops = {
        {"neg", kael::neg},   {"abs", kael::abs},   {"exp", kael::exp},   {"sin", kael::sin},
        {"cos", kael::cos},   {"tanh", kael::tanh}, {"sigmoid", kael::sigmoid}, {"relu", kael::relu},
    };
    const Tensor x = kael::randn({33, 17}, DType::F32).slice(1, 0, 17, 3);
    for (const auto& [name, op] : ops) {
        expect_matches_cpu(op(x.cuda()), op(x), name);
        expect_matches_cpu(op(x.to(DType::F64).cuda()), op(x.to(DType::F64)), name + " float64");
    }
    const Tensor positive = kael::add(kael::abs(x), 0.1);
    for (const auto& [name, op] : std::vector<std::pair<std::string, Op>>{
             {"log", kael::log}, {"sqrt", kael::sqrt}, {"rsqrt", kael::rsqrt}}) {
        expect_matches_cpu(op(positive.cuda()), op(positive), name);
    }
    // Integer inputs of a floating function compute in float32, as on the CPU.
    const Tensor n = kael::randint(0, 5, {6});
    expect_matches_cpu(kael::exp(n.cuda()), kael::exp(n), "exp of int64");
    expect_matches_cpu(kael::abs(n.cuda()), kael::abs(n), "abs of int64");
}

TEST(CudaElementwise, LargeTensorsTakeTheContiguousKernel) {
    KAEL_REQUIRE_GPU();
    // More elements than one launch has threads (65536 blocks of 256), so the grid-stride
    // loop wraps around.
    const Tensor a = kael::randn({(std::int64_t{1} << 24) + 3});
    const Tensor b = kael::randn({(std::int64_t{1} << 24) + 3});
    expect_matches_cpu(kael::add(a.cuda(), b.cuda()), kael::add(a, b), "16.7M-element add");
}

// ---- matrix products through cuBLAS -----------------------------------------------------

TEST(CudaMatmul, ProductsMatchTheCpuForEveryRankAndLayout) {
    KAEL_REQUIRE_GPU();
    kael::manual_seed(11);
    const std::vector<std::pair<Tensor, Tensor>> cases = {
        {kael::randn({7, 5}), kael::randn({5, 3})},                                  // matrix x matrix
        {kael::randn({5, 7}).transpose(0, 1), kael::randn({3, 5}).transpose(0, 1)},  // both transposed
        {kael::randn({4, 7, 5}), kael::randn({4, 5, 3})},                            // batched
        {kael::randn({2, 1, 7, 5}), kael::randn({3, 5, 6})},                         // broadcast batches
        {kael::randn({4, 7, 5}), kael::randn({5, 3})},                               // batch x matrix
        {kael::randn({5}), kael::randn({5, 3})},                                     // vector x matrix
        {kael::randn({7, 5}), kael::randn({5})},                                     // matrix x vector
        {kael::randn({5}), kael::randn({5})},                                        // dot
        {kael::randn({3, 0}), kael::randn({0, 4})},                                  // empty inner size
        {kael::randn({130, 257}).to(DType::F64), kael::randn({257, 65}).to(DType::F64)},
    };
    int index = 0;
    for (const auto& [a, b] : cases) {
        const Tensor expected = kael::matmul(a, b);
        const Tensor got = kael::matmul(a.cuda(), b.cuda());
        EXPECT_EQ(got.device(), Device::CUDA) << index;
        EXPECT_EQ(got.shape(), expected.shape()) << index;
        EXPECT_TRUE(kael::allclose(got.cpu(), expected, 1e-4, 1e-5)) << index;
        ++index;
    }
}

TEST(CudaMatmul, TheTf32SwitchIsOffByDefault) {
    EXPECT_FALSE(kael::matmul_allow_tf32());
    kael::set_matmul_allow_tf32(true);
    EXPECT_TRUE(kael::matmul_allow_tf32());
    kael::set_matmul_allow_tf32(false);
    EXPECT_FALSE(kael::matmul_allow_tf32());
}

TEST(CudaMatmul, BadOperandsAreRefusedWithTheirReason) {
    KAEL_REQUIRE_GPU();
    const Tensor a = kael::randn({3, 4}).cuda();
    const std::string mixed = error_of([&] { (void)kael::matmul(a, kael::randn({4, 2})); });
    EXPECT_NE(mixed.find("cuda"), std::string::npos) << mixed;
    EXPECT_NE(mixed.find("cpu"), std::string::npos) << mixed;
    EXPECT_THROW((void)kael::matmul(a, kael::randn({5, 2}).cuda()), kael::ValueError);
    const Tensor n = kael::randint(0, 3, {2, 2}).cuda();
    EXPECT_THROW((void)kael::matmul(n, n), kael::TypeError);
}

// ---- in place, and modules on the device ------------------------------------------------

TEST(CudaInPlace, ArithmeticMatchesTheCpuOnViews) {
    KAEL_REQUIRE_GPU();
    const Tensor base = kael::randn({6, 4});
    const Tensor other = kael::randn({4, 6});
    Tensor host = base.clone();
    Tensor device = base.cuda();
    Tensor host_view = host.transpose(0, 1);      // written through a transposed view
    Tensor device_view = device.transpose(0, 1);
    host_view.add_(other, 2);
    device_view.add_(other.cuda(), 2);
    host_view.sub_(other.slice(1, 0, 1));          // broadcast column
    device_view.sub_(other.cuda().slice(1, 0, 1));
    host_view.mul_(1.5);                            // a number: a 0-d CPU tensor made on the device
    device_view.mul_(1.5);
    host_view.div_(other);
    device_view.div_(other.cuda());
    expect_matches_cpu(device, host, "add_, sub_, mul_, div_ through a view");
    const std::int64_t version = device.impl()->storage->version();
    device.add_(1);
    EXPECT_EQ(device.impl()->storage->version(), version + 1);
}

TEST(CudaInPlace, FillAndCopyWorkWithinAndAcrossDevices) {
    KAEL_REQUIRE_GPU();
    Tensor device = kael::zeros({4, 5}, DType::F32, Device::CUDA);
    Tensor column = device.slice(1, 1, 2);
    column.fill_(7);
    Tensor host = kael::zeros({4, 5});
    host.slice(1, 1, 2).fill_(7);
    expect_matches_cpu(device, host, "fill_ of a strided column");

    const Tensor source = kael::randn({5, 4}).transpose(0, 1);
    device.copy_(source);  // from the host, transposed
    expect_matches_cpu(device, source.contiguous(), "copy_ from the host");
    Tensor back = kael::empty({4, 5}, DType::F64);
    back.copy_(device);  // to the host, converting
    EXPECT_TRUE(kael::allclose(back, source.to(DType::F64)));
    Tensor as_int = kael::empty({4, 5}, DType::I64, Device::CUDA);
    as_int.copy_(kael::mul(device, 10));  // within the device, converting
    expect_matches_cpu(as_int, kael::mul(source, 10).to(DType::I64), "copy_ on the device into int64");
}

TEST(CudaModules, ALinearLayerMovedToTheDeviceComputesWhatItDidOnTheHost) {
    KAEL_REQUIRE_GPU();
    kael::manual_seed(3);
    kael::nn::Linear layer(8, 3);
    const Tensor input = kael::randn({5, 8});
    const NoGradGuard no_grad;  // values only: the device's backward needs its reductions
    const Tensor expected = layer.forward(input);
    const Tensor weight_handle = layer.weight;
    layer.to(Device::CUDA);
    EXPECT_EQ(weight_handle.device(), Device::CUDA);  // the same impl: optimizers keep their references
    const Tensor got = layer.forward(input.cuda());
    EXPECT_TRUE(kael::allclose(got.cpu(), expected, 1e-5, 1e-6));
}

TEST(CudaDevices, MixingDevicesInOneOperationIsAnError) {
    KAEL_REQUIRE_GPU();
    const std::string message = error_of([] { (void)(kael::ones({3}) + kael::ones({3}, DType::F32, Device::CUDA)); });
    EXPECT_NE(message.find("cpu"), std::string::npos) << message;
    EXPECT_NE(message.find("cuda"), std::string::npos) << message;
}

}  // namespace
