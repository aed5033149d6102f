// The parallel CPU runtime (chapter 12): how parallel_for cuts a loop, that kael's parallel
// kernels give the same bits for any number of threads, and that the pool and the global
// generator survive threads and fork(). The thread-sanitizer build runs these too.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "helpers.h"
#include "kael/kael.h"
#include "kael/parallel.h"

namespace {

using kael::Tensor;

// Sets the thread count for a scope and puts the previous one back.
class Threads {
public:
    explicit Threads(int count) : previous_(kael::get_num_threads()) { kael::set_num_threads(count); }
    ~Threads() { kael::set_num_threads(previous_); }
    Threads(const Threads&) = delete;
    Threads& operator=(const Threads&) = delete;

private:
    int previous_;
};

// The pieces parallel_for makes of [begin, end), sorted.
std::vector<std::pair<std::int64_t, std::int64_t>> pieces(std::int64_t begin, std::int64_t end, std::int64_t grain) {
    std::mutex mutex;
    std::vector<std::pair<std::int64_t, std::int64_t>> seen;
    kael::parallel_for(begin, end, grain, [&](std::int64_t b, std::int64_t e) {
        const std::lock_guard lock(mutex);
        seen.emplace_back(b, e);
    });
    std::sort(seen.begin(), seen.end());
    return seen;
}

bool same_bits(const Tensor& a, const Tensor& b) {
    const Tensor x = a.contiguous();
    const Tensor y = b.contiguous();
    return x.shape() == y.shape() && x.dtype() == y.dtype() &&
           std::memcmp(x.data_ptr_raw(), y.data_ptr_raw(), static_cast<std::size_t>(x.nbytes())) == 0;
}

TEST(Parallel, PiecesCoverTheRangeOnceAndHoldAtLeastTheGrain) {
    const Threads threads(4);
    const auto cut = pieces(10, 1010, 100);
    ASSERT_EQ(cut.size(), 4U);  // min(4 threads, 1000 / 100)
    std::int64_t next = 10;
    for (const auto& [b, e] : cut) {
        EXPECT_EQ(b, next);
        EXPECT_GE(e - b, 100);
        next = e;
    }
    EXPECT_EQ(next, 1010);
    EXPECT_EQ(pieces(0, 300, 100).size(), 3U);  // fewer pieces than threads: 300 / 100
}

TEST(Parallel, ALoopOfFewerThanTwoGrainsRunsAsOnePieceOnTheCaller) {
    const Threads threads(4);
    EXPECT_EQ(pieces(0, 199, 100), (std::vector<std::pair<std::int64_t, std::int64_t>>{{0, 199}}));
    EXPECT_EQ(pieces(0, 200, 100).size(), 2U);  // exactly two grains: two pieces
    EXPECT_TRUE(pieces(5, 5, 1).empty());
    const std::thread::id caller = std::this_thread::get_id();
    kael::parallel_for(0, 10, 100, [&](std::int64_t, std::int64_t) { EXPECT_EQ(std::this_thread::get_id(), caller); });
    EXPECT_THROW(kael::parallel_for(0, 10, 0, [](std::int64_t, std::int64_t) {}), kael::ValueError);
}

TEST(Parallel, OneThreadRunsEverythingOnTheCaller) {
    const Threads threads(1);
    EXPECT_EQ(pieces(0, 100000, 1).size(), 1U);
}

TEST(Parallel, ALoopInsideALoopRunsOnTheThreadOfItsPiece) {
    const Threads threads(4);
    std::atomic<int> inner_pieces = 0;
    kael::parallel_for(0, 4, 1, [&](std::int64_t, std::int64_t) {
        EXPECT_TRUE(kael::in_parallel_region());
        const std::thread::id self = std::this_thread::get_id();
        kael::parallel_for(0, 1000, 1, [&](std::int64_t b, std::int64_t e) {
            EXPECT_EQ(std::this_thread::get_id(), self);
            EXPECT_EQ(e - b, 1000);
            ++inner_pieces;
        });
    });
    EXPECT_EQ(inner_pieces.load(), 4);
    EXPECT_FALSE(kael::in_parallel_region());
}

TEST(Parallel, TheFirstExceptionComesBackAfterEveryPieceHasRun) {
    const Threads threads(4);
    std::atomic<int> finished = 0;
    EXPECT_THROW(kael::parallel_for(0, 4, 1,
                                    [&](std::int64_t b, std::int64_t) {
                                        ++finished;
                                        if (b == 2) {
                                            throw std::runtime_error("piece 2");
                                        }
                                    }),
                 std::runtime_error);
    EXPECT_EQ(finished.load(), 4);
    EXPECT_EQ(pieces(0, 4, 1).size(), 4U);  // the pool still works
}

TEST(Parallel, TheThreadCountIsCheckedAtBothEnds) {
    const Threads keep(kael::get_num_threads());
    EXPECT_THROW(kael::set_num_threads(0), kael::ValueError);
    EXPECT_THROW(kael::set_num_threads(1025), kael::ValueError);
    EXPECT_NO_THROW(kael::set_num_threads(1));
    EXPECT_EQ(kael::get_num_threads(), 1);
    EXPECT_NO_THROW(kael::set_num_threads(1024));
    EXPECT_EQ(kael::get_num_threads(), 1024);
}

TEST(Parallel, ThreadsStartingLoopsAtOnceAllFinishWithTheirOwnResults) {
    const Threads threads(3);
    std::vector<std::thread> callers;
    std::vector<std::int64_t> sums(4, 0);
    for (std::size_t c = 0; c < sums.size(); ++c) {
        callers.emplace_back([&, c] {
            for (int round = 0; round < 50; ++round) {
                std::atomic<std::int64_t> sum = 0;
                kael::parallel_for(0, 1000, 10, [&](std::int64_t b, std::int64_t e) {
                    for (std::int64_t i = b; i < e; ++i) {
                        sum += i;
                    }
                });
                sums[c] += sum.load();
            }
        });
    }
    for (std::thread& t : callers) {
        t.join();
    }
    for (const std::int64_t sum : sums) {
        EXPECT_EQ(sum, 50 * 999 * 1000 / 2);
    }
}

// Each operation kael runs in parallel, with one thread and with four: the same bits.
TEST(Parallel, KernelsGiveTheSameBitsForAnyThreadCount) {
    kael::manual_seed(21);
    const Tensor a = kael::randn({300, 257});
    const Tensor b = kael::randn({257, 190});
    const Tensor rows = kael::randn({64, 3000});
    const Tensor q = kael::randn({2, 4, 40, 16});
    const Tensor k = kael::randn({2, 4, 40, 16});
    const Tensor v = kael::randn({2, 4, 40, 16});
    const Tensor wide = kael::randn({3000, 500});
    const Tensor tall = kael::randn({500, 3000});
    const auto compute = [&] {
        std::vector<Tensor> out;
        out.push_back(kael::gelu(rows, "tanh"));
        out.push_back(kael::add(rows, kael::mul(rows, 3.0)));
        out.push_back(kael::softmax(rows, -1));
        out.push_back(kael::log_softmax(rows, 0));
        out.push_back(kael::layer_norm(rows, {3000}));
        out.push_back(kael::matmul(a, b));
        out.push_back(kael::matmul(b.mT(), a.mT()));
        out.push_back(kael::scaled_dot_product_attention(q, k, v, true));
        out.push_back(kael::sum(rows, {1}));
        out.push_back(kael::mean(rows.mT(), {0}));
        out.push_back(kael::amax(rows, {1}));
        out.push_back(kael::sum(rows, {0}));
        // One row times a matrix (gemv.cpp), B with contiguous rows, then columns.
        out.push_back(kael::matmul(rows.slice(0, 0, 1), wide));
        out.push_back(kael::matmul(rows.slice(0, 1, 2), tall.mT()));
        return out;
    };
    const kael::MatmulBackend backend = kael::matmul_backend();
    for (const kael::MatmulBackend kernel : {kael::MatmulBackend::Kael, kael::MatmulBackend::Auto}) {
        kael::set_matmul_backend(kernel);
        std::vector<Tensor> one;
        {
            const Threads threads(1);
            one = compute();
        }
        const Threads threads(4);
        const std::vector<Tensor> four = compute();
        for (std::size_t i = 0; i < one.size(); ++i) {
            // OpenBLAS, which Auto may choose for the two products (results 5 and 6), cuts
            // its work differently for other thread counts: its sums are the same only
            // within rounding. Every kernel of kael's own gives the same bits.
            const bool blas_product = kernel == kael::MatmulBackend::Auto && (i == 5 || i == 6);
            if (blas_product) {
                EXPECT_TRUE(kael::allclose(one[i], four[i], 1e-5, 1e-4)) << "result " << i << " differs by " << kael::amax(kael::abs(kael::sub(one[i], four[i]))).item() << " at most, of " << kael::amax(kael::abs(one[i])).item();
            } else {
                EXPECT_TRUE(same_bits(one[i], four[i])) << "result " << i << " with the matmul backend "
                                                         << (kernel == kael::MatmulBackend::Kael ? "Kael" : "Auto");
            }
        }
    }
    kael::set_matmul_backend(backend);
}

// A reduction of every row splits the rows among threads; each result must still be the
// reduction of its row alone, which a whole-tensor reduction of that row computes serially.
TEST(Parallel, EachRowOfARowReductionIsThatRowsOwnReduction) {
    kael::manual_seed(22);
    const Tensor rows = kael::randn({40, 5000});
    const Threads threads(4);
    const Tensor sums = kael::sum(rows, {1});
    const Tensor maxima = kael::amax(rows.mT(), {0});
    ASSERT_EQ(sums.shape(), (kael::Shape{40}));
    for (std::int64_t i = 0; i < rows.size(0); ++i) {
        EXPECT_TRUE(same_bits(sums.select(0, i), kael::sum(rows.select(0, i)))) << "row " << i;
        EXPECT_TRUE(same_bits(maxima.select(0, i), kael::amax(rows.select(0, i), {0}))) << "row " << i;
    }
}

// Runs `child` in a process made by fork() and says whether it exited with status 0.
// ThreadSanitizer cannot follow a child that starts threads after a multi-threaded fork, so
// the two fork tests run in the other builds only.
#if defined(__SANITIZE_THREAD__)
#define SKIP_UNDER_TSAN() GTEST_SKIP() << "ThreadSanitizer does not support threads after fork()"
#else
#define SKIP_UNDER_TSAN() (void)0
#endif

template <typename Child> bool in_forked_child(Child child) {
    const pid_t pid = fork();
    if (pid == 0) {
        _exit(child() ? 0 : 1);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

TEST(Parallel, AForkedChildRunsParallelLoopsWithAPoolOfItsOwn) {
    SKIP_UNDER_TSAN();
    const Threads threads(4);
    EXPECT_EQ(pieces(0, 4, 1).size(), 4U);  // the parent's workers exist
    EXPECT_TRUE(in_forked_child([] {
        const Tensor x = kael::randn({512, 512});
        return pieces(0, 4, 1).size() == 4 && same_bits(kael::gelu(x, "tanh"), kael::gelu(x, "tanh"));
    }));
}

// ---- the global generator under threads ---------------------------------------------------

// Four threads draw at once, 200 times each. Every tensor must be a block of consecutive
// numbers of the sequence: the blocks are the ones one thread draws alone, in some order.
TEST(RandomThreads, ConcurrentSamplingDoesNotRace) {
    constexpr int kThreads = 4;
    constexpr int kDraws = 200;
    constexpr std::int64_t kSize = 64;
    kael::manual_seed(99);
    std::set<std::vector<double>> alone;
    for (int i = 0; i < kThreads * kDraws; ++i) {
        alone.insert(kael::testing::values<double>(kael::rand({kSize}, kael::DType::F64)));
    }
    kael::manual_seed(99);
    std::vector<std::vector<std::vector<double>>> drawn(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < kDraws; ++i) {
                drawn[static_cast<std::size_t>(t)].push_back(
                    kael::testing::values<double>(kael::rand({kSize}, kael::DType::F64)));
            }
        });
    }
    for (std::thread& thread : threads) {
        thread.join();
    }
    std::set<std::vector<double>> together;
    for (const auto& mine : drawn) {
        together.insert(mine.begin(), mine.end());
    }
    EXPECT_EQ(together, alone);
}

TEST(RandomThreads, AChildForkedWhileAnotherThreadDrawsCanDraw) {
    SKIP_UNDER_TSAN();
    std::atomic<bool> stop = false;
    std::thread drawer([&] {
        while (!stop) {
            (void)kael::randn({256});
        }
    });
    bool all_ok = true;
    for (int i = 0; i < 5; ++i) {
        all_ok = all_ok && in_forked_child([] {
            kael::manual_seed(1);
            return kael::randn({16}).numel() == 16;
        });
    }
    stop = true;
    drawer.join();
    EXPECT_TRUE(all_ok);
}

}  // namespace
