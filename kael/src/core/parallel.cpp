// The parallel CPU runtime (chapter 12): one pool of worker threads for the process, and
// parallel_for on top of it.
//
// A loop is cut into pieces, numbered 0 .. pieces-1, before any thread starts; the threads
// (the caller and the workers) then take the next untaken number until none is left. Which
// thread computes a piece varies from run to run, but the pieces themselves do not, and
// kael only splits loops whose pieces write different outputs, so the results never vary.
#include "kael/parallel.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "kael/error.h"

namespace kael {
namespace {

constexpr int kMaxThreads = 1024;

thread_local bool t_in_parallel_region = false;

// Sets the flag for its lifetime: a loop started inside a piece runs on that thread.
class RegionGuard {
public:
    RegionGuard() noexcept : previous_(t_in_parallel_region) { t_in_parallel_region = true; }
    ~RegionGuard() { t_in_parallel_region = previous_; }
    RegionGuard(const RegionGuard&) = delete;
    RegionGuard& operator=(const RegionGuard&) = delete;

private:
    bool previous_;
};

int default_num_threads() {
    if (const char* text = std::getenv("KAEL_NUM_THREADS")) {
        char* end = nullptr;
        const long value = std::strtol(text, &end, 10);
        if (end != text && *end == '\0' && value >= 1 && value <= kMaxThreads) {
            return static_cast<int>(value);
        }
    }
    cpu_set_t allowed;  // the CPUs this process may run on (taskset, a container's quota)
    if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0) {
        return std::clamp(CPU_COUNT(&allowed), 1, kMaxThreads);
    }
    return std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, kMaxThreads);
}

std::atomic<int>& num_threads() {
    static std::atomic<int> threads{default_num_threads()};
    return threads;
}

// One parallel loop: its pieces, the next one nobody has taken, and how many are still
// running. A worker that wakes late holds on to the Job it saw, so it never touches the
// next loop's counters; by then every piece of its Job is taken, so it runs nothing.
struct Job {
    Job(const std::function<void(std::int64_t)>& run, std::int64_t count) : piece(&run), pieces(count), unfinished(count) {}

    const std::function<void(std::int64_t)>* piece;
    const std::int64_t pieces;
    std::atomic<std::int64_t> next{0};
    std::mutex mutex;
    std::condition_variable finished;
    std::int64_t unfinished;     // guarded by mutex
    std::exception_ptr error;    // the first exception of a piece, guarded by mutex

    // Takes and runs pieces until none is left.
    void work() {
        const RegionGuard region;
        std::int64_t done = 0;
        std::exception_ptr failure;
        for (std::int64_t i = next.fetch_add(1); i < pieces; i = next.fetch_add(1)) {
            try {
                (*piece)(i);
            } catch (...) {
                failure = failure ? failure : std::current_exception();
            }
            ++done;
        }
        if (done > 0) {
            const std::lock_guard lock(mutex);
            error = error ? error : failure;
            unfinished -= done;
            if (unfinished == 0) {
                finished.notify_all();
            }
        }
    }

    void wait() {
        std::unique_lock lock(mutex);
        finished.wait(lock, [&] { return unfinished == 0; });
    }
};

class Pool {
public:
    // Runs the loop on the pool, or returns false at once when another thread's loop holds it.
    bool try_run(const std::function<void(std::int64_t)>& piece, std::int64_t pieces) {
        std::unique_lock dispatch(dispatch_, std::try_to_lock);
        if (!dispatch.owns_lock()) {
            return false;
        }
        grow(static_cast<std::size_t>(pieces - 1));
        const auto job = std::make_shared<Job>(piece, pieces);
        {
            const std::lock_guard lock(mutex_);
            current_ = job;
            ++generation_;
        }
        wake_.notify_all();
        job->work();
        job->wait();
        {
            const std::lock_guard lock(mutex_);
            current_.reset();
        }
        if (job->error) {
            std::rethrow_exception(job->error);
        }
        return true;
    }

    // fork() copies only the forking thread: the pool is held still while it forks, and the
    // child starts a new one (the old one, its workers absent, is left unused). Held still
    // means no loop dispatched and every worker asleep: a worker just done with a loop may
    // still be freeing its Job, and a lock it holds inside the allocator would stay locked
    // forever in the child (glibc's malloc guards itself across fork; AddressSanitizer's
    // allocator in GCC 12 does not, and a child hung so in a test).
    static void install_fork_handlers() {
        pthread_atfork([] { instance().hold_still(); }, [] { instance().dispatch_.unlock(); },
                       [] { instance_pointer() = new Pool(); });
    }

    static Pool& instance() {
        static std::once_flag once;
        std::call_once(once, [] {
            instance_pointer() = new Pool();  // never destroyed: its workers may outlive main()
            install_fork_handlers();
        });
        return *instance_pointer();
    }

private:
    void hold_still() {
        dispatch_.lock();
        std::unique_lock lock(mutex_);
        asleep_changed_.wait(lock, [&] { return asleep_ == workers_.size(); });
    }

    static Pool*& instance_pointer() {
        static Pool* pool = nullptr;
        return pool;
    }

    // Starts workers until there are `count` (never fewer than before).
    void grow(std::size_t count) {
        while (workers_.size() < count) {
            workers_.emplace_back([this] { serve(); });
        }
    }

    void serve() {
        std::unique_lock lock(mutex_);
        std::uint64_t seen = generation_;
        while (true) {
            ++asleep_;
            asleep_changed_.notify_all();
            wake_.wait(lock, [&] { return generation_ != seen; });
            --asleep_;
            seen = generation_;
            std::shared_ptr<Job> job = current_;
            lock.unlock();
            if (job) {
                job->work();
                job.reset();  // the last owner frees the Job here, before it counts as asleep
            }
            lock.lock();
        }
    }

    std::mutex dispatch_;  // held by the loop that uses the pool
    std::mutex mutex_;     // guards current_, generation_ and asleep_
    std::condition_variable wake_;
    std::shared_ptr<Job> current_;
    std::uint64_t generation_ = 0;
    std::size_t asleep_ = 0;  // workers waiting for a loop, holding nothing
    std::condition_variable asleep_changed_;
    std::vector<std::thread> workers_;  // touched only under dispatch_
};

}  // namespace

int get_num_threads() { return num_threads().load(std::memory_order_relaxed); }

void set_num_threads(int threads) {
    KAEL_CHECK_VALUE(threads >= 1 && threads <= kMaxThreads,
                     "set_num_threads: the number of threads must be in [1, " << kMaxThreads << "], got " << threads);
    num_threads().store(threads, std::memory_order_relaxed);
}

bool in_parallel_region() { return t_in_parallel_region; }

void parallel_for(std::int64_t begin, std::int64_t end, std::int64_t grain_size,
                  const std::function<void(std::int64_t, std::int64_t)>& body) {
    KAEL_CHECK_VALUE(grain_size >= 1, "parallel_for: the grain size must be >= 1, got " << grain_size);
    const std::int64_t size = end - begin;
    if (size <= 0) {
        return;
    }
    const std::int64_t pieces = std::min<std::int64_t>(get_num_threads(), size / grain_size);
    if (pieces <= 1 || t_in_parallel_region) {
        body(begin, end);
        return;
    }
    // Piece i is [begin + i size / pieces, begin + (i + 1) size / pieces): at least
    // size / pieces >= grain_size indices each.
    const std::function<void(std::int64_t)> piece = [&](std::int64_t i) {
        body(begin + i * size / pieces, begin + (i + 1) * size / pieces);
    };
    if (!Pool::instance().try_run(piece, pieces)) {
        body(begin, end);  // another thread's loop has the pool: run this one here
    }
}

}  // namespace kael
