// Tests of exercise 04.3. Every test fails until result_type is implemented. The expected
// dtypes are what PyTorch 1.13 returned for the same operands (torch.result_type, and
// torch._prims_common.elementwise_dtypes for three operands).
#include <gtest/gtest.h>

#include <vector>

#include "exercise.h"
#include "kael/error.h"
#include "kael/factory.h"

namespace {

using exercise::Operand;
using kael::DType;
using kael::Scalar;

Operand tensor(DType dtype) { return kael::zeros({3}, dtype); }
Operand zero_dim(DType dtype) { return kael::scalar(0, dtype); }

DType result_of(const std::vector<Operand>& operands) { return exercise::result_type(operands); }

TEST(ResultType, TensorsWithDimensionsPromoteNormally) {
    EXPECT_EQ(result_of({tensor(DType::I64), tensor(DType::F32)}), DType::F32);
    EXPECT_EQ(result_of({tensor(DType::Bool), tensor(DType::I64)}), DType::I64);
    EXPECT_EQ(result_of({tensor(DType::F32), tensor(DType::F64)}), DType::F64);
    EXPECT_EQ(result_of({tensor(DType::Bool)}), DType::Bool);
}

TEST(ResultType, ScalarsOnlyRaiseTheCategory) {
    EXPECT_EQ(result_of({tensor(DType::I64), Scalar(2.5)}), DType::F32);
    EXPECT_EQ(result_of({tensor(DType::F64), Scalar(2.5)}), DType::F64);
    EXPECT_EQ(result_of({tensor(DType::F32), Scalar(7)}), DType::F32);
    EXPECT_EQ(result_of({tensor(DType::Bool), Scalar(1)}), DType::I64);
    EXPECT_EQ(result_of({tensor(DType::Bool), Scalar(true)}), DType::Bool);
    EXPECT_EQ(result_of({tensor(DType::I64), Scalar(true)}), DType::I64);
}

TEST(ResultType, ZeroDimensionalTensorsOnlyRaiseTheCategory) {
    EXPECT_EQ(result_of({tensor(DType::I64), zero_dim(DType::F64)}), DType::F64);
    EXPECT_EQ(result_of({tensor(DType::F32), zero_dim(DType::F64)}), DType::F32);
    EXPECT_EQ(result_of({zero_dim(DType::F64), tensor(DType::I64)}), DType::F64);
    EXPECT_EQ(result_of({zero_dim(DType::I64), tensor(DType::Bool)}), DType::I64);
    EXPECT_EQ(result_of({zero_dim(DType::I64), tensor(DType::F32)}), DType::F32);
}

TEST(ResultType, OneElementIsNotZeroDimensions) {
    // Shape [1] has a dimension, so it belongs to the first group; shape [] does not.
    const Operand one = kael::zeros({1}, DType::F32);
    EXPECT_EQ(result_of({one, zero_dim(DType::F64)}), DType::F32);
    EXPECT_EQ(result_of({zero_dim(DType::F32), zero_dim(DType::F64)}), DType::F64);
}

TEST(ResultType, ZeroDimensionalTensorsOutrankScalars) {
    EXPECT_EQ(result_of({zero_dim(DType::I64), Scalar(2.5)}), DType::F32);
    EXPECT_EQ(result_of({zero_dim(DType::F64), Scalar(2.5)}), DType::F64);
    EXPECT_EQ(result_of({zero_dim(DType::Bool), Scalar(7)}), DType::I64);
    EXPECT_EQ(result_of({zero_dim(DType::I64), Scalar(true)}), DType::I64);
    EXPECT_EQ(result_of({zero_dim(DType::Bool), zero_dim(DType::I64)}), DType::I64);
}

TEST(ResultType, ThreeGroupsTogether) {
    EXPECT_EQ(result_of({tensor(DType::F32), zero_dim(DType::F64), Scalar(2.5)}), DType::F32);
    EXPECT_EQ(result_of({tensor(DType::I64), zero_dim(DType::F64), Scalar(2.5)}), DType::F64);
    EXPECT_EQ(result_of({tensor(DType::I64), zero_dim(DType::I64), Scalar(2.5)}), DType::F32);
    EXPECT_EQ(result_of({tensor(DType::Bool), zero_dim(DType::I64), Scalar(2.5)}), DType::F32);
    EXPECT_EQ(result_of({tensor(DType::Bool), zero_dim(DType::Bool), Scalar(true)}), DType::Bool);
    EXPECT_EQ(result_of({zero_dim(DType::Bool), zero_dim(DType::F64), tensor(DType::I64)}), DType::F64);
    EXPECT_EQ(result_of({tensor(DType::I64), tensor(DType::F32), zero_dim(DType::F64)}), DType::F32);
}

TEST(ResultType, ScalarsAlone) {
    EXPECT_EQ(result_of({Scalar(2), Scalar(2.5)}), DType::F32);
    EXPECT_EQ(result_of({Scalar(true), Scalar(7)}), DType::I64);
    EXPECT_EQ(result_of({Scalar(true)}), DType::Bool);
    EXPECT_EQ(result_of({tensor(DType::Bool), Scalar(7), Scalar(2.5)}), DType::F32);
}

TEST(ResultType, NoOperandsThrows) {
    EXPECT_THROW((void)result_of({}), kael::ValueError);
}

}  // namespace
