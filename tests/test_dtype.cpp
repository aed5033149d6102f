// Element types and devices: tables, traits, conversion, promotion, dispatch, device names.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>

#include "kael/device.h"
#include "messages.h"
#include "kael/dtype.h"

namespace {

using kael::testing::message_of;

using kael::DType;
using kael::Device;

constexpr DType kAllDTypes[] = {DType::F32, DType::F64, DType::I64, DType::Bool};


// ---- tables ----------------------------------------------------------------------------

TEST(DType, ElementSizes) {
    EXPECT_EQ(kael::element_size(DType::F32), 4);
    EXPECT_EQ(kael::element_size(DType::F64), 8);
    EXPECT_EQ(kael::element_size(DType::I64), 8);
    EXPECT_EQ(kael::element_size(DType::Bool), 1);
}

TEST(DType, NamesFollowPyTorch) {
    EXPECT_EQ(kael::to_string(DType::F32), "float32");
    EXPECT_EQ(kael::to_string(DType::F64), "float64");
    EXPECT_EQ(kael::to_string(DType::I64), "int64");
    EXPECT_EQ(kael::to_string(DType::Bool), "bool");
}

TEST(DType, StreamOutputPrintsTheName) {
    std::ostringstream text;
    text << DType::I64 << ' ' << Device::CUDA << ' ' << Device::CPU;
    EXPECT_EQ(text.str(), "int64 cuda cpu");
}

TEST(DType, IsFloatingPoint) {
    EXPECT_TRUE(kael::is_floating_point(DType::F32));
    EXPECT_TRUE(kael::is_floating_point(DType::F64));
    EXPECT_FALSE(kael::is_floating_point(DType::I64));
    EXPECT_FALSE(kael::is_floating_point(DType::Bool));
}

TEST(DType, TraitsMapBothDirections) {
    static_assert(kael::dtype_of_v<float> == DType::F32);
    static_assert(kael::dtype_of_v<double> == DType::F64);
    static_assert(kael::dtype_of_v<std::int64_t> == DType::I64);
    static_assert(kael::dtype_of_v<std::uint8_t> == DType::Bool);
    static_assert(std::is_same_v<kael::cpp_type_t<DType::F32>, float>);
    static_assert(std::is_same_v<kael::cpp_type_t<DType::F64>, double>);
    static_assert(std::is_same_v<kael::cpp_type_t<DType::I64>, std::int64_t>);
    static_assert(std::is_same_v<kael::cpp_type_t<DType::Bool>, std::uint8_t>);
    // int, bool and std::int32_t are not element types: dtype_of has no definition for them,
    // so dtype_of_v<int> does not compile.
    static_assert(!kael::ElementType<int>);
    static_assert(!kael::ElementType<bool>);
    static_assert(!kael::ElementType<std::int32_t>);
    SUCCEED();
}

TEST(DType, CategoriesOrderBoolIntegerFloating) {
    EXPECT_EQ(kael::dtype_category(DType::Bool), 0);
    EXPECT_EQ(kael::dtype_category(DType::I64), 1);
    EXPECT_EQ(kael::dtype_category(DType::F32), 2);
    EXPECT_EQ(kael::dtype_category(DType::F64), 2);
}

TEST(DType, PromoteTypesPicksTheHigherRank) {
    // Bool < I64 < F32 < F64, symmetric, and every dtype promotes with itself to itself.
    EXPECT_EQ(kael::promote_types(DType::Bool, DType::I64), DType::I64);
    EXPECT_EQ(kael::promote_types(DType::I64, DType::F32), DType::F32);
    EXPECT_EQ(kael::promote_types(DType::F32, DType::F64), DType::F64);
    EXPECT_EQ(kael::promote_types(DType::F64, DType::Bool), DType::F64);
    for (const DType a : kAllDTypes) {
        EXPECT_EQ(kael::promote_types(a, a), a);
        for (const DType b : kAllDTypes) {
            EXPECT_EQ(kael::promote_types(a, b), kael::promote_types(b, a));
        }
    }
}

// ---- conversion ------------------------------------------------------------------------

TEST(DType, ConvertValueNormalizesBool) {
    EXPECT_EQ(kael::convert_value<std::uint8_t>(2.5), 1);
    EXPECT_EQ(kael::convert_value<std::uint8_t>(-0.25f), 1);
    EXPECT_EQ(kael::convert_value<std::uint8_t>(0.0), 0);
    EXPECT_EQ(kael::convert_value<std::uint8_t>(-0.0), 0);
    EXPECT_EQ(kael::convert_value<std::uint8_t>(std::uint8_t{2}), 1);
    EXPECT_EQ(kael::convert_value<std::uint8_t>(std::int64_t{-7}), 1);
    // NaN != 0 is true, so NaN converts to true, as in PyTorch.
    EXPECT_EQ(kael::convert_value<std::uint8_t>(std::numeric_limits<double>::quiet_NaN()), 1);
}

TEST(DType, ConvertValueCastsEverythingElse) {
    EXPECT_EQ(kael::convert_value<double>(std::uint8_t{1}), 1.0);
    EXPECT_EQ(kael::convert_value<float>(std::int64_t{16777217}), 16777216.0f);  // nearest float
    EXPECT_EQ(kael::convert_value<std::int64_t>(-2.7), -2);
    EXPECT_EQ(kael::convert_value<float>(0.1), 0.1f);
}

// ---- dispatch --------------------------------------------------------------------------

TEST(DType, DispatchSelectsMatchingType) {
    for (const DType dtype : kAllDTypes) {
        const DType seen = kael::dispatch(dtype, []<typename T>() { return kael::dtype_of_v<T>; });
        EXPECT_EQ(seen, dtype);
    }
}

TEST(DType, DispatchMatchesElementSize) {
    for (const DType dtype : kAllDTypes) {
        const auto size = kael::dispatch(dtype, []<typename T>() {
            return static_cast<std::int64_t>(sizeof(T));
        });
        EXPECT_EQ(size, kael::element_size(dtype));
    }
}

TEST(DType, DispatchSupportsVoidLambdas) {
    static_assert(std::is_void_v<decltype(kael::dispatch(DType::F32, []<typename T>() {}))>);
    int calls = 0;
    kael::dispatch(DType::I64, [&]<typename T>() {
        if (std::is_same_v<T, std::int64_t>) {
            ++calls;
        }
    });
    EXPECT_EQ(calls, 1);
}

TEST(DType, DispatchFloatingRejectsIntegers) {
    EXPECT_EQ(kael::dispatch_floating(DType::F64, "op",
                                      []<typename T>() { return kael::dtype_of_v<T>; }),
              DType::F64);
    EXPECT_EQ(kael::dispatch_floating(DType::F32, "op",
                                      []<typename T>() { return kael::dtype_of_v<T>; }),
              DType::F32);
    const std::string message = message_of([] {
        kael::dispatch_floating(DType::I64, "rand", []<typename T>() {});
    });
    EXPECT_NE(message.find("rand only supports floating point dtypes, got int64"),
              std::string::npos)
        << message;
    EXPECT_THROW(kael::dispatch_floating(DType::Bool, "rand", []<typename T>() {}),
                 kael::TypeError);
}

TEST(DType, DispatchNoBoolRejectsBool) {
    EXPECT_EQ(kael::dispatch_no_bool(DType::I64, "op",
                                     []<typename T>() { return kael::dtype_of_v<T>; }),
              DType::I64);
    const std::string message = message_of([] {
        kael::dispatch_no_bool(DType::Bool, "matmul", []<typename T>() {});
    });
    EXPECT_NE(message.find("matmul does not support dtype bool"), std::string::npos) << message;
    EXPECT_THROW(kael::dispatch_no_bool(DType::Bool, "matmul", []<typename T>() {}),
                 kael::TypeError);
}

TEST(DType, OutOfRangeEnumValueReachesUnreachable) {
    const auto corrupted = static_cast<DType>(17);
    EXPECT_THROW((void)kael::element_size(corrupted), kael::Error);
    EXPECT_THROW((void)kael::to_string(corrupted), kael::Error);
}

// ---- devices ---------------------------------------------------------------------------

TEST(Device, ParseAcceptsCpuCudaAndCuda0) {
    EXPECT_EQ(kael::parse_device("cpu"), Device::CPU);
    EXPECT_EQ(kael::parse_device("cuda"), Device::CUDA);
    EXPECT_EQ(kael::parse_device("cuda:0"), Device::CUDA);
}

TEST(Device, ParseRejectsOtherNames) {
    for (const char* name : {"gpu", "cuda:1", "CPU", "", "cpu "}) {
        EXPECT_THROW((void)kael::parse_device(name), kael::ValueError) << name;
    }
    const std::string message = message_of([] { (void)kael::parse_device("gpu"); });
    EXPECT_NE(message.find("unknown device 'gpu', expected 'cpu' or 'cuda'"), std::string::npos)
        << message;
}

TEST(Device, SynchronizeWithoutCudaThrows) {
    if (kael::cuda_is_available()) {
        GTEST_SKIP() << "a CUDA device is present";
    }
    EXPECT_THROW(kael::cuda_synchronize(), kael::Error);
}

}  // namespace
