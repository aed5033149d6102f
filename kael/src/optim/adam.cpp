// Adam and AdamW, step for step as torch.optim.Adam and AdamW (single-tensor path).
#include "kael/optim/adam.h"

#include <algorithm>
#include <cmath>

#include "kael/autograd/grad_mode.h"
#include "kael/error.h"
#include "kael/factory.h"
#include "kael/ops/binary.h"
#include "kael/ops/unary.h"
#include "kael/optim/state_dict.h"
#include "kael/view.h"
//> stage 13
#include "kael/parallel.h"
//< stage 13

namespace kael::optim {

namespace {

// The constructor's checks, which a loaded state dict passes too.
void check_options(const AdamOptions& options) {
    KAEL_CHECK_VALUE(options.eps >= 0, "Invalid epsilon value: " << options.eps);
    KAEL_CHECK_VALUE(options.beta1 >= 0 && options.beta1 < 1, "Invalid beta parameter at index 0: " << options.beta1);
    KAEL_CHECK_VALUE(options.beta2 >= 0 && options.beta2 < 1, "Invalid beta parameter at index 1: " << options.beta2);
    KAEL_CHECK_VALUE(options.weight_decay >= 0, "Invalid weight_decay value: " << options.weight_decay);
}

// The constants of one parameter's update at step t.
struct AdamStep {
    double lr, beta1, beta2, eps, weight_decay;
    bool decoupled, amsgrad;
    double step_size;              // lr / (1 - beta1^t)
    double bias_correction2_sqrt;  // sqrt(1 - beta2^t)
};

// The update as tensor operations, in PyTorch's order and with its in-place steps, so the
// rounding is PyTorch's. It works for any layout and device; update_fused below is the
// same arithmetic in one pass for the common case.
void update_with_ops(Tensor& p, Tensor grad, Tensor& m, Tensor& v, std::optional<Tensor>& max_v, const AdamStep& c) {
    if (c.weight_decay != 0) {
        if (c.decoupled) {
            p.mul_(1 - c.lr * c.weight_decay);  // AdamW: shrink the parameter
        } else {
            grad = add(grad, p, c.weight_decay);  // Adam: L2 through the gradient
        }
    }
    m.mul_(c.beta1).add_(grad, 1 - c.beta1);
    v.mul_(c.beta2).add_(mul(grad, grad), 1 - c.beta2);
    Tensor second = v;
    if (c.amsgrad) {
        max_v->copy_(maximum(*max_v, v));
        second = *max_v;
    }
    Tensor denominator = sqrt(second);
    denominator.div_(c.bias_correction2_sqrt).add_(c.eps);
    p.add_(div(m, denominator), -c.step_size);
}

// How the weight decay enters an update: not at all, through the gradient (Adam's L2
// penalty), or by shrinking the parameter first (AdamW's decoupled decay).
enum class Decay { None, L2, Decoupled };

// The same update element by element, as llm.c's AdamW kernel: one pass that reads the
// parameter, its gradient and both running means once, instead of ten passes over them
// with three temporaries. Each line rounds where the tensor version rounds (the constants
// are converted to T first, as PyTorch converts a Python float for a float32 tensor).
//
// The kind of decay and AMSGrad are template parameters, not tests inside the loop, because
// GCC 12 vectorizes a test in a loop by masking the loads and stores it guards, and both
// went wrong on some CPU. Without AVX-512 there is no masked store for the parameter's
// shrink, so the whole AdamW loop stayed scalar on AVX2-only CPUs: 500 ms for GPT-2's 124M
// parameters on an AMD EPYC where the memory allows 100 (chapter 12). And a masked load
// from max_v, which is null without AMSGrad, is cheap on Intel when its mask is all zeros
// but takes a microcode assist on AMD's Zen cores: Adam ran 24 times slower there. Without
// tests, every path is plain vector code on every x86. Not inlined, so that
// scripts/check-vectorization can find each copy.
template <typename T, Decay decay, bool amsgrad>
[[gnu::noinline]] void update_fused(T* p, const T* g, T* m, T* v, T* max_v, std::int64_t n, const AdamStep& c) {
    const T beta1 = static_cast<T>(c.beta1);
    const T beta2 = static_cast<T>(c.beta2);
    const T one_minus_beta1 = static_cast<T>(1 - c.beta1);
    const T one_minus_beta2 = static_cast<T>(1 - c.beta2);
    const T weight_decay = static_cast<T>(c.weight_decay);
    const T shrink = static_cast<T>(1 - c.lr * c.weight_decay);
    const T correction2 = static_cast<T>(c.bias_correction2_sqrt);
    const T eps = static_cast<T>(c.eps);
    const T step_size = static_cast<T>(-c.step_size);
    for (std::int64_t i = 0; i < n; ++i) {
        T grad = g[i];
        if constexpr (decay == Decay::Decoupled) {
            p[i] = p[i] * shrink;
        } else if constexpr (decay == Decay::L2) {
            grad = grad + weight_decay * p[i];
        }
        m[i] = m[i] * beta1 + one_minus_beta1 * grad;
        v[i] = v[i] * beta2 + one_minus_beta2 * (grad * grad);
        T second = v[i];
        if constexpr (amsgrad) {
            max_v[i] = std::max(max_v[i], v[i]);
            second = max_v[i];
        }
        const T denominator = std::sqrt(second) / correction2 + eps;
        p[i] = p[i] + step_size * (m[i] / denominator);
    }
}

// update_fused for elements [begin, end) of the four (or five) arrays, its copy chosen by
// the step's options.
template <typename T>
void update_fused_range(T* p, const T* g, T* m, T* v, T* max_v, std::int64_t begin, std::int64_t end,
                        const AdamStep& c) {
    const auto run = [&]<Decay decay>() {
        if (c.amsgrad) {
            update_fused<T, decay, true>(p + begin, g + begin, m + begin, v + begin, max_v + begin, end - begin, c);
        } else {
            update_fused<T, decay, false>(p + begin, g + begin, m + begin, v + begin, nullptr, end - begin, c);
        }
    };
    if (c.weight_decay == 0) {
        run.template operator()<Decay::None>();
    } else if (c.decoupled) {
        run.template operator()<Decay::Decoupled>();
    } else {
        run.template operator()<Decay::L2>();
    }
}

// The fused loop walks the four arrays in memory order, not index order, so it needs them
// on the CPU, of one dtype, each filling its block of memory exactly (no gaps, no
// overlaps: non-overlapping and dense) and all laid out alike, so that the i-th float in
// memory is the same element in each. A contiguous parameter qualifies, and so does a
// transposed one, such as a GPT-2 Conv1D weight loaded as a view of the file: its
// gradient is laid out like it (AccumulateGrad's contract) and its state is created so.
// Any other parameter (a slice of a larger tensor, one on a device) takes the tensor path.
bool fusable(const Tensor& p) { return p.device() == Device::CPU && is_non_overlapping_and_dense(p); }

bool laid_out_like(const Tensor& t, const Tensor& p) {
    if (t.dtype() != p.dtype() || t.device() != p.device() || !is_non_overlapping_and_dense(t)) {
        return false;
    }
    for (std::int64_t d = 0; d < p.dim(); ++d) {
        if (p.size(d) > 1 && t.stride(d) != p.stride(d)) {
            return false;  // a size-1 dimension is never stepped along, so its stride is free
        }
    }
    return true;
}

// A tensor with p's shape, dtype and strides (p non-overlapping and dense): the layout the
// optimizer keeps its state in, as PyTorch's zeros_like(p) preserves a dense layout.
Tensor empty_laid_out_like(const Tensor& p) {
    return as_strided(empty({p.numel()}, p.dtype(), p.device()), p.shape(), p.strides(), 0);
}

// `t` itself when it is laid out like p, or a copy that is (one pass, for a gradient or a
// loaded state that came in another layout).
Tensor relaid_like(const Tensor& t, const Tensor& p) {
    if (laid_out_like(t, p)) {
        return t;
    }
    Tensor copy = empty_laid_out_like(p);
    copy.copy_(t);
    return copy;
}

// zeros_like(p), in p's layout when the fused loop can use it.
Tensor zero_state(const Tensor& p) {
    if (!fusable(p)) {
        return zeros_like(p);
    }
    Tensor state = empty_laid_out_like(p);
    state.zero_();
    return state;
}

}  // namespace

Adam::Adam(std::vector<Tensor> parameters, const AdamOptions& options) : Adam(std::move(parameters), options, false) {}

Adam::Adam(std::vector<Tensor> parameters, const AdamOptions& options, bool decoupled_weight_decay)
    : Optimizer(std::move(parameters), options.lr), options_(options), decoupled_(decoupled_weight_decay),
      state_(parameters_.size()) {
    check_options(options);
}

void Adam::step() {
    const autograd::NoGradGuard no_grad;
    for (std::size_t i = 0; i < parameters_.size(); ++i) {
        Tensor& p = parameters_[i];
        const std::optional<Tensor> grad = p.grad();
        if (!grad) {
            continue;
        }
        const Tensor g = options_.maximize ? neg(*grad) : *grad;
        AdamParameterState& state = state_[i];
        if (!state.exp_avg) {
            state.exp_avg = zero_state(p);
            state.exp_avg_sq = zero_state(p);
            if (options_.amsgrad) {
                state.max_exp_avg_sq = zero_state(p);
            }
        }
        const auto t = static_cast<double>(++state.step);
        const AdamStep c{learning_rate_,
                         options_.beta1,
                         options_.beta2,
                         options_.eps,
                         options_.weight_decay,
                         decoupled_,
                         options_.amsgrad,
                         learning_rate_ / (1 - std::pow(options_.beta1, t)),
                         std::sqrt(1 - std::pow(options_.beta2, t))};
        if (fusable(p)) {
            // A gradient or a loaded state in another layout is copied into p's once.
            const Tensor grad_in_layout = relaid_like(g, p);
            state.exp_avg = relaid_like(*state.exp_avg, p);
            state.exp_avg_sq = relaid_like(*state.exp_avg_sq, p);
            if (options_.amsgrad) {
                state.max_exp_avg_sq = relaid_like(*state.max_exp_avg_sq, p);
            }
            dispatch_floating(p.dtype(), "Adam", [&]<typename T>() {
                T* const param = p.data_ptr<T>();
                const T* const grad_data = grad_in_layout.data_ptr<T>();
                T* const m = state.exp_avg->data_ptr<T>();
                T* const v = state.exp_avg_sq->data_ptr<T>();
                T* const max_v = options_.amsgrad ? state.max_exp_avg_sq->data_ptr<T>() : nullptr;
                const auto update = [&](std::int64_t begin, std::int64_t end) {
                    update_fused_range(param, grad_data, m, v, max_v, begin, end, c);
                };
//> until 13
//|                 update(0, p.numel());
//< until 13
//> stage 13
                // Every element's update is independent of the others: the pieces of a
                // parallel loop compute exactly what one pass would (chapter 12).
                constexpr std::int64_t kGrain = 1 << 15;
                parallel_for(0, p.numel(), kGrain, update);
//< stage 13
            });
            // The parameter changed without an operation that would count it: bump its
            // version so a graph that saved the old value refuses to use it.
            p.impl()->storage->bump_version();
        } else {
            update_with_ops(p, g, *state.exp_avg, *state.exp_avg_sq, state.max_exp_avg_sq, c);
        }
    }
}

const AdamParameterState& Adam::state(std::size_t index) const {
    KAEL_CHECK_INDEX(index < parameters_.size(),
                     name() << " has " << parameters_.size() << " parameters, there is no parameter " << index);
    return state_[index];
}

void Adam::set_momentum(double momentum) {
    KAEL_CHECK_VALUE(momentum >= 0 && momentum < 1, "Invalid beta parameter at index 0: " << momentum);
    options_.beta1 = momentum;
}

void Adam::save_parameter_state(std::size_t index, nn::StateDict& out) const {
    const AdamParameterState& state = state_[index];
    if (!state.exp_avg) {
        return;  // not stepped yet: PyTorch has no entry for it either
    }
    const auto id = static_cast<std::int64_t>(index);
    // PyTorch 1.13 counts in a float32 tensor, exact up to 2^24 steps; an int64 is exact always.
    out.insert(state_key(id, "step"), scalar(state.step, DType::I64));
    out.insert(state_key(id, "exp_avg"), *state.exp_avg);
    out.insert(state_key(id, "exp_avg_sq"), *state.exp_avg_sq);
    if (state.max_exp_avg_sq) {
        out.insert(state_key(id, "max_exp_avg_sq"), *state.max_exp_avg_sq);
    }
}

void Adam::save_hyperparameters(nn::StateDict& out) const {
    out.insert(group_key("betas"), from_vector(std::vector<double>{options_.beta1, options_.beta2}));
    out.insert(group_key("eps"), scalar(options_.eps, DType::F64));
    out.insert(group_key("weight_decay"), scalar(options_.weight_decay, DType::F64));
    out.insert(group_key("amsgrad"), scalar(options_.amsgrad, DType::Bool));
    out.insert(group_key("maximize"), scalar(options_.maximize, DType::Bool));
    out.insert(group_key("decoupled_weight_decay"), scalar(decoupled_, DType::Bool));
}

void Adam::load_state(StateDictReader& reader, const std::vector<std::int64_t>& saved_ids) {
    AdamOptions options;
    const std::vector<double> betas = reader.numbers(group_key("betas"), 2);
    options.beta1 = betas[0];
    options.beta2 = betas[1];
    options.eps = reader.number(group_key("eps"));
    options.weight_decay = reader.number(group_key("weight_decay"));
    options.amsgrad = reader.flag(group_key("amsgrad"));
    options.maximize = reader.flag(group_key("maximize"));
    check_options(options);
    const bool decoupled = reader.flag(group_key("decoupled_weight_decay"));
    KAEL_CHECK_VALUE(decoupled == decoupled_, name() << ".load_state_dict: the state dict is "
                                                     << (decoupled ? "AdamW" : "Adam")
                                                     << "'s (decoupled_weight_decay is "
                                                     << (decoupled ? "true" : "false") << "), not " << name() << "'s");
    std::vector<AdamParameterState> states(parameters_.size());
    for (std::size_t i = 0; i < parameters_.size(); ++i) {
        const Tensor& p = parameters_[i];
        const std::int64_t id = saved_ids[i];
        AdamParameterState& state = states[i];
        state.exp_avg = reader.buffer(state_key(id, "exp_avg"), p);
        state.exp_avg_sq = reader.buffer(state_key(id, "exp_avg_sq"), p);
        const bool has_step = reader.find(state_key(id, "step")) != nullptr;
        // A parameter has all of its state or none of it, as PyTorch creates it at once.
        KAEL_CHECK_VALUE(has_step == state.exp_avg.has_value() && has_step == state.exp_avg_sq.has_value(),
                         name() << ".load_state_dict: the state of parameter " << id
                                << " needs 'step', 'exp_avg' and 'exp_avg_sq' together, or none of them");
        if (!has_step) {
            continue;
        }
        state.step = reader.integer(state_key(id, "step"));
        KAEL_CHECK_VALUE(state.step >= 0, name() << ".load_state_dict: '" << state_key(id, "step")
                                                 << "' is negative: " << state.step);
        if (options.amsgrad) {
            state.max_exp_avg_sq = reader.buffer(state_key(id, "max_exp_avg_sq"), p);
            KAEL_CHECK_VALUE(state.max_exp_avg_sq.has_value(),
                             name() << ".load_state_dict: amsgrad is on, but the state dict has no '"
                                    << state_key(id, "max_exp_avg_sq") << "'");
        }
    }
    reader.finish();
    options.lr = options_.lr;  // the constructor's; the base restores the current rate
    options_ = options;
    state_ = std::move(states);
}

AdamW::AdamW(std::vector<Tensor> parameters, const AdamOptions& options) : Adam(std::move(parameters), options, true) {}

}  // namespace kael::optim
