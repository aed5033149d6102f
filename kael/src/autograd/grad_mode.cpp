// Grad mode lives in one thread-local flag: every operation reads it, so it must cost no
// lock, and a guard on one thread must not switch recording off for another.
#include "kael/autograd/grad_mode.h"

namespace kael::autograd {
namespace {

thread_local bool grad_enabled = true;

}  // namespace

bool is_grad_enabled() noexcept { return grad_enabled; }

void set_grad_enabled(bool enabled) noexcept { grad_enabled = enabled; }

}  // namespace kael::autograd
