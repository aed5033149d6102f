// The Bool-valued element functions of the device and where (chapter 09): comparisons,
// logical operations, the NaN tests and isclose, each what ops/compare.cpp computes on
// the CPU.
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "cuda/elementwise.h"
#include "cuda/loops.cuh"

namespace kael::cuda {
namespace {

template <typename T> struct Compare {
    CompareOp op;

    __device__ std::uint8_t operator()(T x, T y) const {
        switch (op) {
        case CompareOp::Eq:
            return x == y;
        case CompareOp::Ne:
            return x != y;
        case CompareOp::Lt:
            return x < y;
        case CompareOp::Le:
            return x <= y;
        case CompareOp::Gt:
            return x > y;
        case CompareOp::Ge:
            return x >= y;
        case CompareOp::And:
            return x != T{0} && y != T{0};
        case CompareOp::Or:
            return x != T{0} || y != T{0};
        case CompareOp::Xor:
            return (x != T{0}) != (y != T{0});
        }
        return 0;
    }
};

template <typename T> struct Classify {
    ClassifyOp op;

    __device__ std::uint8_t operator()(T x) const {
        if (op == ClassifyOp::LogicalNot) {
            return x == T{0};
        }
        if constexpr (std::is_floating_point_v<T>) {
            switch (op) {
            case ClassifyOp::IsNan:
                return isnan(x);
            case ClassifyOp::IsInf:
                return isinf(x);
            default:
                return isfinite(x);
            }
        } else {
            return op == ClassifyOp::IsFinite;  // integers are never NaN or infinite
        }
    }
};

template <typename T> struct Where {
    __device__ T operator()(std::uint8_t condition, T x, T y) const { return condition != 0 ? x : y; }
};

template <typename T> struct IsClose {
    double rtol, atol;
    bool equal_nan;

    __device__ std::uint8_t operator()(T x, T y) const {
        if constexpr (std::is_same_v<T, std::uint8_t>) {
            return x == y;
        } else {
            if (x == y) {
                return 1;  // also equal infinities
            }
            const bool x_nan = x != x;
            const bool y_nan = y != y;
            if (x_nan || y_nan) {
                return equal_nan && x_nan && y_nan;
            }
            const double difference = fabs(static_cast<double>(x) - static_cast<double>(y));
            return isfinite(difference) && difference <= atol + rtol * fabs(static_cast<double>(y));
        }
    }
};

}  // namespace

void compare(CompareOp op, const TensorIterator& iter) {
    dispatch(iter.operand(1).dtype(), [&]<typename T>() {
        launch_elementwise<std::uint8_t, T, T>(iter, Compare<T>{op});
    });
}

void classify(ClassifyOp op, const TensorIterator& iter) {
    dispatch(iter.operand(1).dtype(), [&]<typename T>() {
        launch_elementwise<std::uint8_t, T>(iter, Classify<T>{op});
    });
}

void where(const TensorIterator& iter) {
    dispatch(iter.output().dtype(), [&]<typename T>() {
        launch_elementwise<T, std::uint8_t, T, T>(iter, Where<T>{});
    });
}

void isclose(const TensorIterator& iter, double rtol, double atol, bool equal_nan) {
    dispatch(iter.operand(1).dtype(), [&]<typename T>() {
        launch_elementwise<std::uint8_t, T, T>(iter, IsClose<T>{rtol, atol, equal_nan});
    });
}

}  // namespace kael::cuda
