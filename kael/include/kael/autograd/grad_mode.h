#pragma once
/// \file
/// \brief Grad mode: whether operations record the graph, per thread.

namespace kael::autograd {

/// True when operations on tensors that require grad record graph nodes on this thread
/// (the default). Grad mode is thread-local: a guard on one thread does not affect another.
[[nodiscard]] bool is_grad_enabled() noexcept;

/// Sets grad mode for this thread. Prefer the guards, which restore the previous mode.
void set_grad_enabled(bool enabled) noexcept;

/// Turns recording off for its lifetime, as `torch.no_grad()`: optimizer steps and
/// evaluation run inside one, so they build no graph and may write into leaves.
class NoGradGuard {
public:
    NoGradGuard() noexcept : previous_(is_grad_enabled()) { set_grad_enabled(false); }
    ~NoGradGuard() { set_grad_enabled(previous_); }
    NoGradGuard(const NoGradGuard&) = delete;
    NoGradGuard& operator=(const NoGradGuard&) = delete;

private:
    bool previous_;
};

/// Turns recording back on for its lifetime, inside a NoGradGuard; the engine uses one
/// to record the backward pass itself when asked for create_graph.
class EnableGradGuard {
public:
    EnableGradGuard() noexcept : previous_(is_grad_enabled()) { set_grad_enabled(true); }
    ~EnableGradGuard() { set_grad_enabled(previous_); }
    EnableGradGuard(const EnableGradGuard&) = delete;
    EnableGradGuard& operator=(const EnableGradGuard&) = delete;

private:
    bool previous_;
};

}  // namespace kael::autograd
