#pragma once
/// \file
/// \brief kael::Profiler: what every operation of a stretch of code cost, as a table sorted
/// by time and as a trace that Perfetto or chrome://tracing draws (chapter 13).
///
/// While a Profiler lives, each operation that passes through the frame of the
/// differentiable functions (chapter 06), each in-place operation, each call of a module
/// and each node that backward() runs is recorded: its name, the shapes, dtypes and device
/// of its inputs, its wall time, the storage bytes its thread allocated inside it, and the
/// allocator's cache hits meanwhile. Views, which move no data, are not recorded. Calls
/// nest: a module call holds the operations it runs, and the table splits each name's time
/// into its total and its self time, the part spent outside nested calls.
///
/// While no Profiler lives, a recording point costs one relaxed atomic load and one branch.

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "kael/device.h"
#include "kael/dtype.h"
#include "kael/shape.h"

namespace kael {

class Tensor;

/// One recorded call.
struct ProfileEvent {
    std::string name;                  ///< "matmul", "Linear", "MulBackward", "add_"
    std::string kind;                  ///< "op", "in-place", "module" or "backward"
    std::vector<Shape> shapes;         ///< of its tensor inputs, in order
    std::vector<DType> dtypes;         ///< of its tensor inputs, in order
    Device device = Device::CPU;       ///< of its first tensor input (CPU without one)
    std::int64_t thread = 0;           ///< 0, 1, ...: threads numbered as they first record
    std::int64_t depth = 0;            ///< recorded calls around it on its thread
    double start_us = 0;               ///< microseconds from the Profiler's start
    double duration_us = 0;            ///< wall time, nested calls included
    double self_us = 0;                ///< wall time outside the calls nested in it
    std::int64_t bytes_allocated = 0;  ///< storage its thread allocated inside it, nested calls included
    std::int64_t self_bytes = 0;       ///< the part of bytes_allocated outside nested calls
    std::int64_t cache_hits = 0;       ///< the allocator's cache hits meanwhile, on every thread
};

/// The events of one name, added up: a row of Profiler::summary().
struct ProfileRow {
    std::string name;                  ///< the events' name
    std::int64_t calls = 0;            ///< how many events
    double total_us = 0;               ///< their wall time
    double self_us = 0;                ///< their wall time outside nested calls
    std::int64_t self_bytes = 0;       ///< their allocations outside nested calls
};

/// Records the operations run while it lives (see the file comment). One Profiler records
/// at a time in a process.
class Profiler {
public:
    /// Starts recording. kael::Error when another Profiler is recording.
    Profiler();
    /// Stops recording.
    ~Profiler();
    Profiler(const Profiler&) = delete;
    Profiler& operator=(const Profiler&) = delete;

    /// Stops recording; the events stay. Idempotent.
    void stop();

    /// The events recorded so far, in the order they ended.
    [[nodiscard]] std::vector<ProfileEvent> events() const;

    /// The events added up by name, the largest total time first.
    [[nodiscard]] std::vector<ProfileRow> rows() const;

    /// A table of the first `limit` rows: name, calls, total and self time in ms, their
    /// shares of the profiled time, the mean time per call, and the self allocations.
    [[nodiscard]] std::string summary(std::size_t limit = 20) const;

    /// Writes the events as a Chrome trace (JSON, "X" events in microseconds, one track per
    /// thread), which Perfetto (ui.perfetto.dev) and chrome://tracing open. kael::Error
    /// naming the path when the file cannot be written.
    void write_chrome_trace(const std::filesystem::path& path) const;

private:
    std::uint64_t session_;
    bool stopped_ = false;
    double elapsed_us_ = 0;               // from start to stop()
    std::vector<ProfileEvent> events_;    // taken over at stop()
};

namespace profiler {
/// What Scope and count_allocation call while a Profiler records (profiler.cpp).
namespace detail {
/// Whether a Profiler records: the one flag every recording point reads.
extern std::atomic<bool> recording;
/// Opens a call on this thread's stack.
void begin(const char* name, const char* kind, bool parse_name);
/// Adds an input to the innermost open call.
void add_input(const Tensor& t);
/// Closes the innermost open call and keeps its event.
void end() noexcept;
/// Counts new storage against the innermost open call.
void count_allocation(std::int64_t bytes) noexcept;
}  // namespace detail

/// Whether a Profiler is recording now.
[[nodiscard]] inline bool enabled() noexcept { return detail::recording.load(std::memory_order_relaxed); }

/// A recorded call from construction to destruction, on this thread. `name` must outlive
/// the scope; with `from_signature` it is a function's signature (std::source_location's
/// function_name()) and the event is named after the function ("kael::exp" -> "exp").
class Scope {
public:
    /// Begins a call named `name` of `kind` with `inputs` (null ones are skipped): one
    /// branch when nothing records.
    Scope(const char* name, const char* kind, std::initializer_list<const Tensor*> inputs = {},
          bool from_signature = false) {
        if (enabled()) {
            begin(name, kind, inputs, from_signature);
        }
    }
    /// Ends the call.
    ~Scope() {
        if (active_) {
            detail::end();
        }
    }
    /// Takes over `other`'s call (a scope made by a helper function and returned).
    Scope(Scope&& other) noexcept : active_(other.active_) { other.active_ = false; }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
    Scope& operator=(Scope&&) = delete;

    /// Whether this call is being recorded.
    [[nodiscard]] bool active() const noexcept { return active_; }
    /// Adds one more input (a call whose inputs are not known at construction).
    void add_input(const Tensor& t) const {
        if (active_) {
            detail::add_input(t);
        }
    }

private:
    void begin(const char* name, const char* kind, std::initializer_list<const Tensor*> inputs, bool from_signature);
    bool active_ = false;
};

/// Counts `bytes` of new storage against the calls open on this thread (the storage
/// calls it): one branch when nothing records.
inline void count_allocation(std::int64_t bytes) noexcept {
    if (enabled()) {
        detail::count_allocation(bytes);
    }
}

/// "exp" for "kael::Tensor kael::exp(const kael::Tensor&)": the unqualified name of the
/// function a signature declares, without template arguments.
[[nodiscard]] std::string function_name(std::string_view signature);

}  // namespace profiler
}  // namespace kael
