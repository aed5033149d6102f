#pragma once
/// \file
/// \brief Anomaly detection (chapter 13): a backward pass that stops at the first node
/// whose formula produces NaN or infinity, and names the forward operation behind it.
#include <string>

namespace kael::autograd {
class Node;
}

namespace kael::autograd {

/// True while anomaly detection is on. It is one process-wide switch, as
/// `torch.autograd.set_detect_anomaly`: a backward pass may run on another thread than
/// the one that asked for it.
[[nodiscard]] bool is_anomaly_enabled() noexcept;

/// Turns anomaly detection on or off. Prefer DetectAnomalyGuard, which restores it.
void set_anomaly_enabled(bool enabled) noexcept;

/// Anomaly detection on for its lifetime, as `with torch.autograd.detect_anomaly():`.
/// Every gradient a node returns is then checked for NaN and infinity, which costs one
/// reduction per gradient: a debugging mode, not one to train in.
class DetectAnomalyGuard {
public:
    DetectAnomalyGuard() noexcept : previous_(is_anomaly_enabled()) { set_anomaly_enabled(true); }
    ~DetectAnomalyGuard() { set_anomaly_enabled(previous_); }
    DetectAnomalyGuard(const DetectAnomalyGuard&) = delete;
    DetectAnomalyGuard& operator=(const DetectAnomalyGuard&) = delete;

private:
    bool previous_;
};

/// The name of the forward operation that recorded `node`: "MulBackward" was recorded by
/// mul, "LogSoftmaxBackward" by log_softmax; a name without the suffix is kept as it is.
[[nodiscard]] std::string forward_name(const Node& node);

/// A node's forward inputs as "[2, 3] float32, [3] float32", from its input metadata.
[[nodiscard]] std::string describe_inputs(const Node& node);

}  // namespace kael::autograd
