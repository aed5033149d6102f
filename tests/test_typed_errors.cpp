// The typed error subclasses: each derives from kael::Error, and representative failures
// throw the subclass that names their cause (Python maps them to IndexError, ValueError and
// TypeError).
#include <gtest/gtest.h>

#include <string>
#include <type_traits>

#include "kael/kael.h"

namespace {

TEST(TypedErrors, EachKindDerivesFromError) {
    static_assert(std::is_base_of_v<kael::Error, kael::IndexError>);
    static_assert(std::is_base_of_v<kael::Error, kael::ValueError>);
    static_assert(std::is_base_of_v<kael::Error, kael::TypeError>);
    static_assert(!std::is_same_v<kael::IndexError, kael::ValueError>);
    static_assert(!std::is_same_v<kael::ValueError, kael::TypeError>);
    static_assert(std::is_base_of_v<std::runtime_error, kael::Error>);
    SUCCEED();
}

TEST(TypedErrors, MacrosThrowTheirSubclass) {
    EXPECT_THROW(KAEL_CHECK_INDEX(false, "x"), kael::IndexError);
    EXPECT_THROW(KAEL_CHECK_VALUE(false, "x"), kael::ValueError);
    EXPECT_THROW(KAEL_CHECK_TYPE(false, "x"), kael::TypeError);
}

TEST(TypedErrors, SubclassesAreDistinctAtRunTime) {
    // Each handler records what caught the error, so the test fails when nothing throws
    // as surely as when the wrong type is thrown.
    std::string caught = "nothing";
    try {
        KAEL_CHECK_VALUE(false, "a value error");
    } catch (const kael::IndexError&) {
        caught = "IndexError";
    } catch (const kael::TypeError&) {
        caught = "TypeError";
    } catch (const kael::ValueError&) {
        caught = "ValueError";
    }
    EXPECT_EQ(caught, "ValueError");
    caught = "nothing";
    try {
        KAEL_CHECK(false, "a plain error");
    } catch (const kael::ValueError&) {
        caught = "ValueError";
    } catch (const kael::Error&) {
        caught = "Error";
    }
    EXPECT_EQ(caught, "Error");
}

TEST(TypedErrors, IndexErrors) {
    const kael::Tensor t = kael::zeros({3});
    EXPECT_THROW((void)t.at<float>({3}), kael::IndexError);
    EXPECT_THROW((void)t.size(1), kael::IndexError);
    EXPECT_THROW((void)kael::index_from_linear(3, {3}), kael::IndexError);
    EXPECT_THROW((void)kael::wrap_dim(-2, 1), kael::IndexError);
}

TEST(TypedErrors, ValueErrors) {
    EXPECT_THROW((void)kael::zeros({-1}), kael::ValueError);
    EXPECT_THROW((void)kael::empty({std::int64_t{1} << 61, 2}, kael::DType::F64), kael::ValueError);
    EXPECT_THROW((void)kael::parse_device("tpu"), kael::ValueError);
    EXPECT_THROW((void)kael::arange(0, 1, 0), kael::ValueError);
    EXPECT_THROW((void)kael::randint(1, 1, {1}), kael::ValueError);
    EXPECT_THROW((void)kael::zeros({2}).item(), kael::ValueError);
}

TEST(TypedErrors, TypeErrors) {
    EXPECT_THROW((void)kael::zeros({2}).data_ptr<double>(), kael::TypeError);
    EXPECT_THROW((void)kael::rand({2}, kael::DType::I64), kael::TypeError);
    EXPECT_THROW((void)kael::arange(0, 2, 1, kael::DType::Bool), kael::TypeError);
    EXPECT_THROW((void)kael::linspace(0, 1, 2, kael::DType::I64), kael::TypeError);
}

TEST(TypedErrors, InvariantViolationsArePlainErrors) {
    auto impl = std::make_shared<kael::TensorImpl>();
    impl->storage = std::make_shared<kael::Storage>(4);
    impl->shape = {2};
    impl->strides = {1};
    try {
        (void)kael::Tensor::from_impl(std::move(impl));
        FAIL() << "an impl that reads past its storage was accepted";
    } catch (const kael::ValueError&) {
        FAIL() << "out-of-storage layout should be a plain kael::Error";
    } catch (const kael::Error&) {
        SUCCEED();
    }
}

}  // namespace
