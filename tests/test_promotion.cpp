// Type promotion: the dtype of a result from the dtypes of its operands.
#include <gtest/gtest.h>

#include <vector>

#include "kael/factory.h"
#include "kael/kernels.h"
#include "kael/scalar.h"

namespace {

using kael::DType;
using kael::Tensor;

TEST(Promotion, Table) {
    using kael::promote_types;
    static_assert(promote_types(DType::Bool, DType::Bool) == DType::Bool);
    static_assert(promote_types(DType::Bool, DType::I64) == DType::I64);
    static_assert(promote_types(DType::Bool, DType::F32) == DType::F32);
    static_assert(promote_types(DType::Bool, DType::F64) == DType::F64);
    static_assert(promote_types(DType::I64, DType::I64) == DType::I64);
    static_assert(promote_types(DType::I64, DType::F32) == DType::F32);
    static_assert(promote_types(DType::I64, DType::F64) == DType::F64);
    static_assert(promote_types(DType::F32, DType::F32) == DType::F32);
    static_assert(promote_types(DType::F32, DType::F64) == DType::F64);
    static_assert(promote_types(DType::F64, DType::F64) == DType::F64);
    static_assert(promote_types(DType::F64, DType::Bool) == DType::F64);
    static_assert(promote_types(DType::F32, DType::I64) == DType::F32);
    SUCCEED();
}

TEST(Promotion, Scalars) {
    using kael::promote_with_scalar;
    static_assert(promote_with_scalar(DType::F32, 2.5) == DType::F32);
    static_assert(promote_with_scalar(DType::F64, 2.5) == DType::F64);
    static_assert(promote_with_scalar(DType::I64, 2.5) == DType::F32);
    static_assert(promote_with_scalar(DType::Bool, 3) == DType::I64);
    static_assert(promote_with_scalar(DType::I64, true) == DType::I64);
    static_assert(promote_with_scalar(DType::Bool, true) == DType::Bool);
    static_assert(promote_with_scalar(DType::Bool, 0.5) == DType::F32);
    static_assert(promote_with_scalar(DType::I64, 7) == DType::I64);
    SUCCEED();
}

TEST(Promotion, ZeroDimensionalTensorsOnlyRaiseTheCategory) {
    const Tensor ints = kael::zeros({3}, DType::I64);
    const Tensor floats = kael::zeros({3});
    const Tensor bools = kael::zeros({3}, DType::Bool);
    EXPECT_EQ(kael::result_dtype(ints, kael::scalar(1.0, DType::F64)), DType::F64);
    EXPECT_EQ(kael::result_dtype(floats, kael::scalar(1.0, DType::F64)), DType::F32);
    EXPECT_EQ(kael::result_dtype(kael::scalar(1.0, DType::F64), floats), DType::F32);
    EXPECT_EQ(kael::result_dtype(bools, kael::scalar(1, DType::I64)), DType::I64);
    EXPECT_EQ(kael::result_dtype(ints, kael::scalar(true, DType::Bool)), DType::I64);
    EXPECT_EQ(kael::result_dtype(kael::scalar(1, DType::I64), kael::scalar(1.0, DType::F64)), DType::F64);
    EXPECT_EQ(kael::result_dtype(ints, floats), DType::F32);
    const std::vector<Tensor> three{ints, kael::scalar(1.0, DType::F64), bools};
    EXPECT_EQ(kael::result_dtype(three), DType::F64);
    EXPECT_EQ(kael::result_dtype(kael::scalar(2, DType::I64), 0.5), DType::F32);
}

}  // namespace
