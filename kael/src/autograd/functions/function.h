#pragma once
// How a differentiable function is written (chapter 06).
//
// Every function a user calls, kael::exp or kael::matmul, is defined in this folder, one
// file per family of operations. Each runs the operation of the layer below (kael::native,
// in kael/src/ops and kael/src/core), and when an input requires grad it records a node
// with the backward formula:
//
//     Tensor exp(const Tensor& t) {
//         return autograd::with_output_saved(t, "ExpBackward", [&] { return native::exp(t); },
//                                            [](const Tensor& grad, const Tensor& y) { return grad * y; });
//     }
//
// The operation runs below autograd, with recording off: whatever it calls internally
// records nothing of its own, and the one node recorded here stands for the whole of it.
// A formula is ordinary kael code, so a backward pass with create_graph records the graph
// of the gradients through these same functions.
#include <initializer_list>
//> stage 14
#include <source_location>
//< stage 14
#include <utility>

#include "autograd/recording.h"
#include "kael/autograd/grad_mode.h"
//> stage 14
#include "kael/profiler.h"
//< stage 14
#include "kael/tensor.h"

namespace kael::autograd {

//> stage 14
// The profiler's record of one call of a frame, with the tensors among `inputs`: nothing
// but a branch while no Profiler records.
[[nodiscard]] inline profiler::Scope profiled(const std::source_location& caller, std::initializer_list<Input> inputs) {
    profiler::Scope scope(caller.function_name(), "op", {}, /*from_signature=*/true);
    if (scope.active()) {
        for (const Input& input : inputs) {
            if (input.get() != nullptr) {
                scope.add_input(*input.get());
            }
        }
    }
    return scope;
}

//< stage 14
// `compute()` run with recording off: what an operation does below autograd.
template <typename Compute> [[nodiscard]] decltype(auto) below_autograd(Compute&& compute) {
    const NoGradGuard no_grad;
    return std::forward<Compute>(compute)();
}

// The frame of every differentiable function: `compute()` below autograd, and when grad
// mode is on and one of `inputs` requires grad, `record(out)` on its result. A call on
// tensors outside autograd costs a few thread-local reads and one pointer test per input.
// The operation runs below autograd either way, so the views and copies it makes inside
// are never tracked for autograd, which would cost an allocation each.
//> stage 14
//
// Every call is also a profiler's recording point (chapter 13), named after the function
// that called the frame: `caller` defaults to the place of the call, so the public
// function kael::exp needs no name of its own to be recorded as "exp".
//< stage 14
template <typename Compute, typename Record>
//> until 14
//| [[nodiscard]] Tensor differentiable(std::initializer_list<Input> inputs, Compute&& compute, Record&& record) {
//< until 14
//> stage 14
[[nodiscard]] Tensor differentiable(std::initializer_list<Input> inputs, Compute&& compute, Record&& record,
                                    const std::source_location& caller = std::source_location::current()) {
    const profiler::Scope operation = profiled(caller, inputs);
//< stage 14
    if (!should_record(inputs)) {
        return below_autograd(std::forward<Compute>(compute));
    }
    Tensor out = below_autograd(std::forward<Compute>(compute));
    std::forward<Record>(record)(out);
    return out;
}

// The shapes most element-wise formulas take, out = f(t): the gradient as a function of the
// incoming gradient and the saved input (with_input_saved), the saved output
// (with_output_saved), or the incoming gradient alone (linear). Each saves only what its
// formula reads.
template <typename Compute, typename Backward>
//> until 14
//| [[nodiscard]] Tensor with_input_saved(const Tensor& t, const char* name, Compute&& compute, Backward backward) {
//< until 14
//> stage 14
[[nodiscard]] Tensor with_input_saved(const Tensor& t, const char* name, Compute&& compute, Backward backward,
                                      const std::source_location& caller = std::source_location::current()) {
//< stage 14
    return differentiable({t}, std::forward<Compute>(compute), [&](const Tensor& out) {
        record(out, name, {t}, [input = SavedTensor(t), backward](const Tensor& grad, Node& node) {
            return Grads{backward(grad, input.unpack(node))};
        });
//> until 14
//|     });
//< until 14
//> stage 14
    }, caller);
//< stage 14
}

template <typename Compute, typename Backward>
//> until 14
//| [[nodiscard]] Tensor with_output_saved(const Tensor& t, const char* name, Compute&& compute, Backward backward) {
//< until 14
//> stage 14
[[nodiscard]] Tensor with_output_saved(const Tensor& t, const char* name, Compute&& compute, Backward backward,
                                       const std::source_location& caller = std::source_location::current()) {
//< stage 14
    return differentiable({t}, std::forward<Compute>(compute), [&](const Tensor& out) {
        record(out, name, {t}, [result = SavedTensor::output(out), backward](const Tensor& grad, Node& node) {
            return Grads{backward(grad, result.unpack(node))};
        });
//> until 14
//|     });
//< until 14
//> stage 14
    }, caller);
//< stage 14
}

template <typename Compute, typename Backward>
//> until 14
//| [[nodiscard]] Tensor linear(const Tensor& t, const char* name, Compute&& compute, Backward backward) {
//< until 14
//> stage 14
[[nodiscard]] Tensor linear(const Tensor& t, const char* name, Compute&& compute, Backward backward,
                            const std::source_location& caller = std::source_location::current()) {
//< stage 14
    return differentiable({t}, std::forward<Compute>(compute), [&](const Tensor& out) {
        record(out, name, {t}, [backward](const Tensor& grad, Node&) { return Grads{backward(grad)}; });
//> until 14
//|     });
//< until 14
//> stage 14
    }, caller);
//< stage 14
}

}  // namespace kael::autograd
