// kael::Profiler (chapter 13): calls recorded on a stack per thread, added to one list
// when they end, and read back as a table or a Chrome trace.
#include "kael/profiler.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iomanip>
#include <map>
#include <mutex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "kael/allocator.h"
#include "kael/error.h"
#include "kael/tensor.h"

namespace kael {

namespace profiler::detail {
std::atomic<bool> recording{false};
}  // namespace profiler::detail

namespace {

using Clock = std::chrono::steady_clock;

double microseconds(Clock::duration d) { return std::chrono::duration<double, std::micro>(d).count(); }

// The one recording of the process: who records, since when, and what has ended so far.
struct Recording {
    std::mutex mutex;
    std::uint64_t session = 0;  // the recording Profiler's number; 0 while none records
    std::uint64_t last_session = 0;
    Clock::time_point start;
    std::vector<ProfileEvent> events;
    std::int64_t threads = 0;  // threads that have recorded in this session
};

Recording& current_recording() {
    static Recording* r = new Recording();  // never destroyed: threads may end calls after main
    return *r;
}

// A call open on this thread.
struct OpenCall {
    ProfileEvent event;
    const char* raw_name;
    bool parse_name;
    std::uint64_t session;
    Clock::time_point start;
    double nested_us = 0;             // wall time of the calls nested in it
    std::int64_t own_bytes = 0;       // allocated while it was the innermost call
    std::int64_t nested_bytes = 0;    // allocated inside nested calls
    std::int64_t hits_at_start = 0;
};

thread_local std::vector<OpenCall> open_calls;
thread_local std::uint64_t numbered_in = 0;  // the session this thread's number belongs to
thread_local std::int64_t thread_number = 0;

std::int64_t cache_hits() {
    return allocator_stats(Device::CPU).hits + allocator_stats(Device::CUDA).hits;
}

std::string shape_text(const Shape& shape) {
    std::ostringstream out;
    out << '[';
    for (std::size_t i = 0; i < shape.size(); ++i) {
        out << (i == 0 ? "" : ", ") << shape[i];
    }
    out << ']';
    return out.str();
}

}  // namespace

namespace profiler {

std::string function_name(std::string_view signature) {
    std::string_view name = signature.substr(0, signature.find('('));
    if (!name.empty() && name.back() == '>') {  // foo<T>: drop the template arguments
        int depth = 0;
        for (std::size_t i = name.size(); i-- > 0;) {
            depth += name[i] == '>' ? 1 : name[i] == '<' ? -1 : 0;
            if (depth == 0) {
                name = name.substr(0, i);
                break;
            }
        }
    }
    if (const std::size_t colons = name.rfind("::"); colons != std::string_view::npos) {
        name = name.substr(colons + 2);
    }
    if (const std::size_t space = name.rfind(' '); space != std::string_view::npos) {
        name = name.substr(space + 1);
    }
    return std::string(name);
}

void Scope::begin(const char* name, const char* kind, std::initializer_list<const Tensor*> inputs,
                  bool from_signature) {
    detail::begin(name, kind, from_signature);
    active_ = true;
    for (const Tensor* t : inputs) {
        if (t != nullptr) {
            detail::add_input(*t);
        }
    }
}

namespace detail {

void begin(const char* name, const char* kind, bool parse_name) {
    Recording& r = current_recording();
    std::uint64_t session = 0;
    {
        const std::lock_guard lock(r.mutex);
        session = r.session;
        if (session != 0 && numbered_in != session) {
            numbered_in = session;
            thread_number = r.threads++;
        }
    }
    OpenCall call;
    call.event.kind = kind;
    call.event.depth = static_cast<std::int64_t>(open_calls.size());
    call.event.thread = thread_number;
    call.raw_name = name;
    call.parse_name = parse_name;
    call.session = session;
    call.hits_at_start = cache_hits();
    call.start = Clock::now();
    open_calls.push_back(std::move(call));
}

void add_input(const Tensor& t) {
    ProfileEvent& event = open_calls.back().event;
    if (event.shapes.empty()) {
        event.device = t.device();
    }
    event.shapes.push_back(t.shape());
    event.dtypes.push_back(t.dtype());
}

void end() noexcept {
    const Clock::time_point now = Clock::now();
    OpenCall call = std::move(open_calls.back());
    open_calls.pop_back();
    const double duration = microseconds(now - call.start);
    const std::int64_t bytes = call.own_bytes + call.nested_bytes;
    const std::int64_t hits = cache_hits() - call.hits_at_start;
    if (!open_calls.empty()) {
        OpenCall& parent = open_calls.back();
        parent.nested_us += duration;
        parent.nested_bytes += bytes;
    }
    try {
        ProfileEvent& event = call.event;
        event.name = call.parse_name ? function_name(call.raw_name) : std::string(call.raw_name);
        event.duration_us = duration;
        event.self_us = std::max(0.0, duration - call.nested_us);
        event.bytes_allocated = bytes;
        event.self_bytes = call.own_bytes;
        event.cache_hits = hits;
        Recording& r = current_recording();
        const std::lock_guard lock(r.mutex);
        if (call.session != 0 && call.session == r.session) {  // a call that outlived its Profiler is dropped
            event.start_us = microseconds(call.start - r.start);
            r.events.push_back(std::move(event));
        }
    } catch (...) {
        // Out of memory while profiling: the event is lost, the program goes on.
    }
}

void count_allocation(std::int64_t bytes) noexcept {
    if (!open_calls.empty()) {
        open_calls.back().own_bytes += bytes;
    }
}

}  // namespace detail
}  // namespace profiler

Profiler::Profiler() {
    Recording& r = current_recording();
    const std::lock_guard lock(r.mutex);
    KAEL_CHECK(r.session == 0, "a Profiler is already recording; stop it before starting another");
    session_ = ++r.last_session;
    r.session = session_;
    r.start = Clock::now();
    r.events.clear();
    r.threads = 0;
    profiler::detail::recording.store(true, std::memory_order_relaxed);
}

Profiler::~Profiler() { stop(); }

void Profiler::stop() {
    if (stopped_) {
        return;
    }
    Recording& r = current_recording();
    const std::lock_guard lock(r.mutex);
    profiler::detail::recording.store(false, std::memory_order_relaxed);
    r.session = 0;
    elapsed_us_ = microseconds(Clock::now() - r.start);
    events_ = std::move(r.events);
    r.events.clear();
    stopped_ = true;
}

std::vector<ProfileEvent> Profiler::events() const {
    if (stopped_) {
        return events_;
    }
    Recording& r = current_recording();
    const std::lock_guard lock(r.mutex);
    return r.events;
}

std::vector<ProfileRow> Profiler::rows() const {
    std::map<std::string, ProfileRow> by_name;
    for (const ProfileEvent& e : events()) {
        ProfileRow& row = by_name[e.name];
        row.name = e.name;
        ++row.calls;
        row.total_us += e.duration_us;
        row.self_us += e.self_us;
        row.self_bytes += e.self_bytes;
    }
    std::vector<ProfileRow> rows;
    for (auto& [name, row] : by_name) {
        rows.push_back(std::move(row));
    }
    std::stable_sort(rows.begin(), rows.end(),
                     [](const ProfileRow& a, const ProfileRow& b) { return a.total_us > b.total_us; });
    return rows;
}

std::string Profiler::summary(std::size_t limit) const {
    const std::vector<ProfileEvent> recorded = events();
    double top_level_us = 0;
    std::int64_t threads = 0;
    for (const ProfileEvent& e : recorded) {
        top_level_us += e.depth == 0 ? e.duration_us : 0.0;
        threads = std::max(threads, e.thread + 1);
    }
    const std::vector<ProfileRow> table = rows();
    std::ostringstream out;
    out << recorded.size() << " calls on " << threads << " thread" << (threads == 1 ? "" : "s") << ", "
        << std::fixed << std::setprecision(3) << top_level_us / 1000 << " ms in the outermost calls\n";
    out << std::left << std::setw(28) << "name" << std::right << std::setw(8) << "calls" << std::setw(12)
        << "total ms" << std::setw(9) << "total %" << std::setw(11) << "self ms" << std::setw(8) << "self %"
        << std::setw(12) << "mean us" << std::setw(14) << "alloc bytes" << '\n';
    const auto percent = [&](double us) { return top_level_us > 0 ? 100.0 * us / top_level_us : 0.0; };
    for (std::size_t i = 0; i < std::min(limit, table.size()); ++i) {
        const ProfileRow& row = table[i];
        const std::string name = row.name.size() > 27 ? row.name.substr(0, 26) + "~" : row.name;
        out << std::left << std::setw(28) << name << std::right << std::setw(8) << row.calls << std::setw(12)
            << std::setprecision(3) << row.total_us / 1000 << std::setw(9) << std::setprecision(1)
            << percent(row.total_us) << std::setw(11) << std::setprecision(3) << row.self_us / 1000 << std::setw(8)
            << std::setprecision(1) << percent(row.self_us) << std::setw(12) << std::setprecision(1)
            << row.total_us / static_cast<double>(row.calls) << std::setw(14) << row.self_bytes << '\n';
    }
    if (table.size() > limit) {
        out << "... and " << table.size() - limit << " more names\n";
    }
    return out.str();
}

void Profiler::write_chrome_trace(const std::filesystem::path& path) const {
    using nlohmann::json;
    json trace_events = json::array();
    std::int64_t threads = 0;
    for (const ProfileEvent& e : events()) {
        json shapes = json::array();
        json dtypes = json::array();
        for (std::size_t i = 0; i < e.shapes.size(); ++i) {
            shapes.push_back(shape_text(e.shapes[i]));
            dtypes.push_back(std::string(to_string(e.dtypes[i])));
        }
        trace_events.push_back({{"name", e.name},
                                {"cat", e.kind},
                                {"ph", "X"},
                                {"ts", e.start_us},
                                {"dur", e.duration_us},
                                {"pid", 1},
                                {"tid", e.thread},
                                {"args",
                                 {{"shapes", shapes},
                                  {"dtypes", dtypes},
                                  {"device", to_string(e.device)},
                                  {"bytes_allocated", e.bytes_allocated},
                                  {"cache_hits", e.cache_hits}}}});
        threads = std::max(threads, e.thread + 1);
    }
    for (std::int64_t t = 0; t < threads; ++t) {
        trace_events.push_back({{"name", "thread_name"},
                                {"ph", "M"},
                                {"pid", 1},
                                {"tid", t},
                                {"args", {{"name", "kael thread " + std::to_string(t)}}}});
    }
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    KAEL_CHECK(file.good(), "cannot write the trace to " << path << ": the file cannot be opened");
    file << json{{"traceEvents", trace_events}, {"displayTimeUnit", "ms"}}.dump() << '\n';
    file.close();
    KAEL_CHECK(!file.fail(), "cannot write the trace to " << path << ": writing failed");
}

}  // namespace kael
