#pragma once
// A one-line progress bar for training loops: steps done, the running loss, throughput and
// the time left, redrawn in place with a carriage return. It draws only when the stream is
// a terminal, so a log file or a CI run gets the per-epoch lines and nothing else.

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

class ProgressBar {
public:
    // `total` steps of `samples_per_step` samples each, drawn on stderr.
    ProgressBar(std::int64_t total, std::int64_t samples_per_step)
        : total_(total), samples_per_step_(samples_per_step), enabled_(isatty(fileno(stderr)) != 0),
          start_(std::chrono::steady_clock::now()) {}

    // Step `done` (1-based) finished with `loss`; redraws at most 20 times a second.
    void update(std::int64_t done, double loss) {
        if (!enabled_) {
            return;
        }
        const auto now = std::chrono::steady_clock::now();
        if (done < total_ && now - last_draw_ < std::chrono::milliseconds(50)) {
            return;
        }
        last_draw_ = now;
        const double seconds = std::chrono::duration<double>(now - start_).count();
        const double rate = seconds > 0 ? static_cast<double>(done * samples_per_step_) / seconds : 0.0;
        const double left = done > 0 ? seconds * static_cast<double>(total_ - done) / static_cast<double>(done) : 0.0;
        constexpr int width = 30;
        const int filled = static_cast<int>(width * done / total_);
        std::string bar(static_cast<std::size_t>(filled), '=');
        bar.resize(width, ' ');
        std::fprintf(stderr, "\r[%s] %lld/%lld  loss %.4f  %.0f samples/s  %.1f s left ", bar.c_str(),
                     static_cast<long long>(done), static_cast<long long>(total_), loss, rate, left);
        if (done == total_) {
            std::fprintf(stderr, "\r%*s\r", width + 70, "");  // clear the line for the epoch summary
        }
        std::fflush(stderr);
    }

private:
    std::int64_t total_;
    std::int64_t samples_per_step_;
    bool enabled_;
    std::chrono::steady_clock::time_point start_;
    std::chrono::steady_clock::time_point last_draw_{};
};
