// Matrix products: every rank rule, every layout, both kernels, against a naive reference.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string_view>
#include <vector>

#include "helpers.h"
#include "kael/factory.h"
#include "kael/ops.h"
#include "kael/random.h"

namespace {

using kael::DType;
using kael::Shape;
using kael::Tensor;
using kael::testing::message_of;
using kael::testing::values;

using I = std::int64_t;

// Every element of a rank-2 tensor in double, row by row, read through at(): any layout.
std::vector<double> elements(const Tensor& t) {
    const Tensor t64 = t.to(DType::F64);
    std::vector<double> out;
    out.reserve(static_cast<std::size_t>(t.numel()));
    for (I i = 0; i < t.size(0); ++i) {
        for (I j = 0; j < t.size(1); ++j) {
            out.push_back(t64.at<double>({i, j}));
        }
    }
    return out;
}

// The obviously right triple loop, in double. Each operand is read once (an at() call per
// product term made this reference most of the suite's time under the sanitizers).
std::vector<double> naive_product(const Tensor& a, const Tensor& b) {
    const I m = a.size(0), k = a.size(1), n = b.size(1);
    const std::vector<double> a_elements = elements(a);
    const std::vector<double> b_elements = elements(b);
    std::vector<double> c(static_cast<std::size_t>(m * n), 0.0);
    for (I i = 0; i < m; ++i) {
        for (I j = 0; j < n; ++j) {
            double total = 0;
            for (I p = 0; p < k; ++p) {
                total += a_elements[static_cast<std::size_t>(i * k + p)] * b_elements[static_cast<std::size_t>(p * n + j)];
            }
            c[static_cast<std::size_t>(i * n + j)] = total;
        }
    }
    return c;
}

void expect_near_product(const Tensor& c, const Tensor& a, const Tensor& b, double tolerance) {
    const std::vector<double> expected = naive_product(a, b);
    const std::vector<double> got = values<double>(c.to(DType::F64));
    ASSERT_EQ(got.size(), expected.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        ASSERT_NEAR(got[i], expected[i], tolerance) << "element " << i;
    }
}

// Runs a test body once per available kernel, restoring the default afterwards.
template <typename Body> void for_each_backend(Body body) {
    std::vector<kael::MatmulBackend> backends{kael::MatmulBackend::Kael};
    if (kael::blas_available()) {
        backends.push_back(kael::MatmulBackend::Blas);
    }
    for (const kael::MatmulBackend backend : backends) {
        kael::set_matmul_backend(backend);
        body();
    }
    kael::set_matmul_backend(kael::MatmulBackend::Auto);
}

TEST(Matmul, SmallExactProduct) {
    const Tensor a = kael::from_vector({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, {2, 3});
    const Tensor b = kael::from_vector({7.0, 8.0, 9.0, 10.0, 11.0, 12.0}, {3, 2});
    for_each_backend([&] {
        EXPECT_EQ(values<double>(kael::matmul(a, b)), (std::vector<double>{58, 64, 139, 154}));
    });
}

TEST(Matmul, SizesAcrossBlockBoundaries) {
    // Sizes that are not multiples of any register block, and K beyond one K block (256).
    kael::manual_seed(1);
    for_each_backend([&] {
        for (const auto& [m, k, n] : std::vector<std::array<I, 3>>{{1, 1, 1}, {13, 7, 37}, {65, 300, 33}, {150, 513, 70}}) {
            const Tensor a = kael::randn({m, k});
            const Tensor b = kael::randn({k, n});
            expect_near_product(kael::matmul(a, b), a, b, 1e-3);
            const Tensor a64 = a.to(DType::F64);
            const Tensor b64 = b.to(DType::F64);
            expect_near_product(kael::matmul(a64, b64), a64, b64, 1e-9);
        }
    });
}

TEST(Matmul, TransposedAndStridedOperands) {
    kael::manual_seed(2);
    const Tensor base = kael::randn({40, 30});
    const Tensor a = base.T();                        // [30, 40], columns contiguous
    const Tensor b = kael::randn({40, 60}).slice(1, 0, 60, 2);  // [40, 30], stride 2 in a row
    for_each_backend([&] { expect_near_product(kael::matmul(a, b), a, b, 1e-3); });
}

TEST(Matmul, TransposedOperandsAcrossBlockBoundaries) {
    // The packing copies walk a transposed A (columns contiguous) and an untransposed B
    // (rows contiguous) in their own order: check both, with tails in every direction and
    // K beyond one K block.
    kael::manual_seed(4);
    for_each_backend([&] {
        for (const auto& [m, k, n] : std::vector<std::array<I, 3>>{{13, 7, 37}, {65, 300, 33}, {150, 513, 70}}) {
            const Tensor a_transposed = kael::randn({k, m}).T();  // [m, k], a_row == 1
            const Tensor b_transposed = kael::randn({n, k}).T();  // [k, n], b_row == 1
            const Tensor a = kael::randn({m, k});
            const Tensor b = kael::randn({k, n});
            expect_near_product(kael::matmul(a_transposed, b), a_transposed, b, 1e-3);
            expect_near_product(kael::matmul(a, b_transposed), a, b_transposed, 1e-3);
            expect_near_product(kael::matmul(a_transposed, b_transposed), a_transposed, b_transposed, 1e-3);
        }
    });
}

TEST(Matmul, OneDimensionalOperands) {
    const Tensor v = kael::from_vector({1.0, 2.0, 3.0});
    const Tensor m = kael::from_vector({1.0, 0.0, 0.0, 1.0, 1.0, 1.0}, {3, 2});
    const Tensor dot = kael::matmul(v, v);
    EXPECT_EQ(dot.dim(), 0);
    EXPECT_EQ(dot.item<double>(), 14);
    const Tensor row = kael::matmul(v, m);  // [3] x [3, 2] -> [2]
    EXPECT_EQ(row.shape(), (Shape{2}));
    EXPECT_EQ(values<double>(row), (std::vector<double>{4, 5}));
    const Tensor column = kael::matmul(m.T(), v);  // [2, 3] x [3] -> [2]
    EXPECT_EQ(values<double>(column), (std::vector<double>{4, 5}));
    EXPECT_EQ(kael::dot(v, v).item<double>(), 14);
}

TEST(Matmul, BatchesBroadcast) {
    kael::manual_seed(3);
    const Tensor a = kael::randn({2, 1, 4, 5}, DType::F64);
    const Tensor b = kael::randn({3, 5, 6}, DType::F64);
    const Tensor c = kael::matmul(a, b);
    EXPECT_EQ(c.shape(), (Shape{2, 3, 4, 6}));
    for (I i = 0; i < 2; ++i) {
        for (I j = 0; j < 3; ++j) {
            expect_near_product(c[i][j], a[i][0], b[j], 1e-12);
        }
    }
    // A batch against one matrix folds the batch into the rows.
    const Tensor folded = kael::matmul(a, b[0]);
    EXPECT_EQ(folded.shape(), (Shape{2, 1, 4, 6}));
    expect_near_product(folded[1][0], a[1][0], b[0], 1e-12);
    // A vector against a batch.
    EXPECT_EQ(kael::matmul(kael::ones({5}, DType::F64), b).shape(), (Shape{3, 6}));
    EXPECT_EQ(kael::bmm(kael::ones({3, 2, 5}, DType::F64), b).shape(), (Shape{3, 2, 6}));
}

TEST(Matmul, IntegersAreExactAndWrap) {
    const Tensor a = kael::from_vector({I{1}, I{2}, I{3}, I{4}}, {2, 2});
    EXPECT_EQ(values<I>(kael::matmul(a, a)), (std::vector<I>{7, 10, 15, 22}));
    const I big = std::numeric_limits<I>::max();
    const Tensor wrap = kael::matmul(kael::from_vector({big, I{1}}, {1, 2}), kael::from_vector({I{1}, I{1}}, {2, 1}));
    EXPECT_EQ(wrap.item<I>(), std::numeric_limits<I>::min());
}

TEST(Matmul, EmptyDimensions) {
    EXPECT_EQ(kael::matmul(kael::zeros({0, 3}), kael::zeros({3, 4})).shape(), (Shape{0, 4}));
    const Tensor zero_k = kael::matmul(kael::ones({2, 0}), kael::ones({0, 3}));
    EXPECT_EQ(values<float>(zero_k), (std::vector<float>(6, 0.0f)));  // an empty sum is 0
    // A batch times a matrix folds the batch into rows; with k = 0 the row count cannot be
    // inferred from the element count, which is 0.
    const Tensor batch_zero_k = kael::matmul(kael::ones({2, 3, 0}), kael::ones({0, 4}));
    EXPECT_EQ(batch_zero_k.shape(), (Shape{2, 3, 4}));
    EXPECT_EQ(values<float>(batch_zero_k), (std::vector<float>(24, 0.0f)));
}

//> stage 13
// One row times a matrix takes its own path (chapter 12), one pass over B in the order B is
// stored: sums of rows for B with contiguous rows, dot products for B with contiguous
// columns. Sizes on both sides of its 16-lane dot products and its 1024-column blocks, an
// empty K and N, and a row of A with a stride.
TEST(Matmul, OneRowTimesAMatrixInEveryLayout) {
    kael::manual_seed(13);
    for_each_backend([&] {
        for (const auto& [k, n] : std::vector<std::array<I, 2>>{
                 {0, 5}, {5, 0}, {1, 1}, {15, 1023}, {16, 1024}, {17, 1025}, {300, 2049}}) {
            const Tensor a = kael::randn({1, k});
            const Tensor a_strided = kael::randn({k, 3}).T().slice(0, 0, 1);  // [1, k], stride 3
            const Tensor rows = kael::randn({k, n});                          // B[k, :] contiguous
            const Tensor columns = kael::randn({n, k}).T();                   // B[:, j] contiguous
            for (const Tensor& left : {a, a_strided}) {
                for (const Tensor& right : {rows, columns}) {
                    expect_near_product(kael::matmul(left, right), left, right, 1e-3);
                    const Tensor left64 = left.to(DType::F64);
                    const Tensor right64 = right.to(DType::F64);
                    expect_near_product(kael::matmul(left64, right64), left64, right64, 1e-9);
                }
            }
        }
    });
}

// Up to eight rows take the same path, each row of A with each piece of B in turn, and a
// row's result must not depend on the rows beside it: a sequence decoded in a batch gets
// the bits it gets alone (chapter 13). Nine rows go to the blocked product.
TEST(Matmul, AFewRowsTimesAMatrixGiveEachRowItsOwnBits) {
    kael::manual_seed(14);
    // The own kernel and Auto take this path; BLAS, asked for by name, gets every product.
    for (const kael::MatmulBackend backend : {kael::MatmulBackend::Kael, kael::MatmulBackend::Auto}) {
        kael::set_matmul_backend(backend);
        for (const I k : {I{3}, I{70}, I{300}}) {
            const Tensor rows = kael::randn({k, 1100});       // B[k, :] contiguous
            const Tensor columns = kael::randn({1100, k}).T();  // B[:, j] contiguous
            for (const I m : {I{2}, I{8}, I{9}}) {
                const Tensor a = kael::randn({m, k});
                const Tensor a_strided = kael::randn({k, m}).T();  // rows with a stride
                for (const Tensor& left : {a, a_strided}) {
                    for (const Tensor& right : {rows, columns}) {
                        const Tensor product = kael::matmul(left, right);
                        expect_near_product(product, left, right, 1e-3);
                        for (I i = 0; m <= 8 && i < m; ++i) {
                            const Tensor alone = kael::matmul(left.slice(0, i, i + 1), right);
                            EXPECT_EQ(values<float>(product.slice(0, i, i + 1)), values<float>(alone))
                                << "row " << i << " of " << m << ", k = " << k;
                        }
                    }
                }
            }
        }
    }
    kael::set_matmul_backend(kael::MatmulBackend::Auto);
}

//< stage 13
TEST(Matmul, ErrorsNameTheShapesAndDtypes) {
    EXPECT_THROW((void)kael::matmul(kael::zeros({2, 3}), kael::zeros({4, 5})), kael::ValueError);
    EXPECT_NE(message_of([] { (void)kael::matmul(kael::zeros({2, 3}), kael::zeros({4, 5})); })
                  .find("shapes [2, 3] and [4, 5] cannot be multiplied"),
              std::string::npos);
    EXPECT_THROW((void)kael::matmul(kael::zeros({2, 2}), kael::zeros({2, 2}, DType::F64)), kael::TypeError);
    EXPECT_THROW((void)kael::matmul(kael::zeros({2}, DType::Bool), kael::zeros({2}, DType::Bool)), kael::TypeError);
    EXPECT_THROW((void)kael::matmul(kael::scalar(1.0), kael::zeros({2})), kael::ValueError);
    EXPECT_THROW((void)kael::dot(kael::zeros({2}), kael::zeros({3})), kael::ValueError);
    EXPECT_THROW((void)kael::mm(kael::zeros({2}), kael::zeros({2, 2})), kael::ValueError);
    EXPECT_THROW((void)kael::bmm(kael::zeros({2, 2, 2}), kael::zeros({3, 2, 2})), kael::ValueError);
    EXPECT_THROW((void)kael::matmul(kael::zeros({2, 2, 3}), kael::zeros({3, 3, 2})), kael::ValueError);
}

TEST(Matmul, Outer) {
    const Tensor o = kael::outer(kael::from_vector({1.0, 2.0}), kael::from_vector({3.0, 4.0, 5.0}));
    EXPECT_EQ(o.shape(), (Shape{2, 3}));
    EXPECT_EQ(values<double>(o), (std::vector<double>{3, 4, 5, 6, 8, 10}));
}

TEST(Matmul, BackendSwitch) {
    EXPECT_EQ(kael::matmul_backend(), kael::MatmulBackend::Auto);
    if (!kael::blas_available()) {
        EXPECT_THROW(kael::set_matmul_backend(kael::MatmulBackend::Blas), kael::Error);
    }
    kael::set_matmul_backend(kael::MatmulBackend::Kael);
    EXPECT_EQ(kael::matmul_backend(), kael::MatmulBackend::Kael);
    kael::set_matmul_backend(kael::MatmulBackend::Auto);
}

// KAEL_GEMM_ISA may pick a narrower copy of the own kernel, never a wider one than the CPU
// runs. CTest runs the Matmul suite again under KAEL_GEMM_ISA=avx2 and =generic (see
// tests/CMakeLists.txt), so every copy computes these products on every machine that can.
TEST(Matmul, KernelCopyFollowsKaelGemmIsa) {
    const std::string_view isa = kael::matmul_kernel_isa();
    EXPECT_TRUE(isa == "avx512" || isa == "avx2" || isa == "generic") << isa;
    const char* requested = std::getenv("KAEL_GEMM_ISA");
    if (requested != nullptr && std::string_view(requested) == "generic") {
        EXPECT_EQ(isa, "generic");
    }
    if (requested != nullptr && std::string_view(requested) == "avx2") {
        EXPECT_NE(isa, "avx512");
    }
}

}  // namespace
