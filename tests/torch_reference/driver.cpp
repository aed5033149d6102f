// Runs kael operations named in a case file on tensors read from disk, and writes the
// results, so that check_against_torch.py can compare them with PyTorch's.
//
// Case file: one case per line,
//     <case> <op> [key=value ...] : <input file> [<input file> ...]
// Tensor files: a header line "<dtype> <ndim> <size>..." followed by the raw elements.
// Each result is written to <output dir>/<case>.bin, or <case>.error holding the message
// when kael throws.
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
//> stage 8
#include <memory>
//< stage 8
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "kael/kael.h"
//> stage 8
#include "kael/optim/adam.h"
#include "kael/optim/one_cycle.h"
#include "kael/optim/schedule.h"
#include "kael/optim/sequential.h"
#include "kael/optim/sgd.h"
//< stage 8

namespace {

using kael::DType;
using kael::Tensor;
using Params = std::map<std::string, std::string>;
using Op = std::function<Tensor(const std::vector<Tensor>&, const Params&)>;

DType parse_dtype(const std::string& name) {
    if (name == "float32") return DType::F32;
    if (name == "float64") return DType::F64;
    if (name == "int64") return DType::I64;
    if (name == "bool") return DType::Bool;
    throw std::runtime_error("unknown dtype " + name);
}

Tensor read_tensor(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::string header;
    std::getline(in, header);
    std::istringstream fields(header);
    std::string dtype_name;
    std::int64_t ndim = 0;
    fields >> dtype_name >> ndim;
    kael::Shape shape(static_cast<std::size_t>(ndim));
    for (auto& size : shape) {
        fields >> size;
    }
    Tensor t = kael::empty(shape, parse_dtype(dtype_name));
    in.read(reinterpret_cast<char*>(t.data_ptr_raw()), static_cast<std::streamsize>(t.nbytes()));
    return t;
}

void write_tensor(const std::string& path, const Tensor& t) {
    const Tensor c = t.contiguous();
    std::ofstream out(path, std::ios::binary);
    out << kael::to_string(c.dtype()) << ' ' << c.dim();
    for (const auto size : c.shape()) {
        out << ' ' << size;
    }
    out << '\n';
    out.write(reinterpret_cast<const char*>(c.data_ptr_raw()), static_cast<std::streamsize>(c.nbytes()));
}

double number(const Params& p, const std::string& key, double fallback) {
    const auto it = p.find(key);
    return it == p.end() ? fallback : std::stod(it->second);
}

std::int64_t integer(const Params& p, const std::string& key, std::int64_t fallback) {
    const auto it = p.find(key);
    return it == p.end() ? fallback : std::stoll(it->second);
}

kael::Scalar scalar_param(const Params& p, const std::string& key) {
    const std::string& text = p.at(key);
    if (text.find_first_of(".en") != std::string::npos) {
        return std::stod(text);
    }
    return static_cast<std::int64_t>(std::stoll(text));
}

std::vector<std::int64_t> int_list(const Params& p, const std::string& key) {
    std::vector<std::int64_t> result;
    const auto it = p.find(key);
    if (it == p.end() || it->second.empty()) {
        return result;
    }
    std::istringstream list(it->second);
    std::string item;
    while (std::getline(list, item, ',')) {
        result.push_back(std::stoll(item));
    }
    return result;
}

std::vector<std::int64_t> dims(const Params& p) { return int_list(p, "dims"); }

// Applies a view recipe such as "p1,0,2/s0:1:5:2/e3,4,5" to `t`: steps separated by "/",
// each a letter and its numbers: p permute, t transpose, s slice dim:start:end:step,
// e expand, u unsqueeze.
Tensor apply_view_recipe(Tensor t, const std::string& recipe) {
    std::istringstream steps(recipe);
    std::string step;
    while (std::getline(steps, step, '/')) {
        std::vector<std::int64_t> numbers;
        std::istringstream list(step.substr(1));
        std::string item;
        while (std::getline(list, item, step[0] == 's' ? ':' : ',')) {
            numbers.push_back(std::stoll(item));
        }
        switch (step[0]) {
            case 'p': t = t.permute(numbers); break;
            case 't': t = t.transpose(numbers.at(0), numbers.at(1)); break;
            case 's': t = t.slice(numbers.at(0), numbers.at(1), numbers.at(2), numbers.at(3)); break;
            case 'e': t = t.expand(numbers); break;
            case 'u': t = t.unsqueeze(numbers.at(0)); break;
            default: throw std::invalid_argument("unknown view step " + step);
        }
    }
    return t;
}

//> stage 8
// The optimizer a case names, with its hyperparameters (PyTorch's defaults otherwise).
std::unique_ptr<kael::optim::Optimizer> make_optimizer(std::vector<Tensor> params, const Params& p) {
    const std::string name = p.at("optimizer");
    if (name == "sgd") {
        return std::make_unique<kael::optim::Sgd>(
            std::move(params), kael::optim::SgdOptions{number(p, "lr", 1e-3), number(p, "momentum", 0),
                                                       number(p, "dampening", 0), number(p, "weight_decay", 0),
                                                       integer(p, "nesterov", 0) != 0, integer(p, "maximize", 0) != 0});
    }
    const kael::optim::AdamOptions options{number(p, "lr", 1e-3),          number(p, "beta1", 0.9),
                                           number(p, "beta2", 0.999),       number(p, "eps", 1e-8),
                                           number(p, "weight_decay", name == "adamw" ? 1e-2 : 0),
                                           integer(p, "amsgrad", 0) != 0,   integer(p, "maximize", 0) != 0};
    if (name == "adamw") {
        return std::make_unique<kael::optim::AdamW>(std::move(params), options);
    }
    return std::make_unique<kael::optim::Adam>(std::move(params), options);
}

// The schedule that the parameters under `prefix` name ("kind", then its settings);
// SequentialLR's schedules are under "s0.", "s1.", ... of its prefix.
std::shared_ptr<kael::optim::LRScheduler> make_schedule(kael::optim::Optimizer& optimizer, const Params& all,
                                                        const std::string& prefix) {
    Params p;
    for (const auto& [key, value] : all) {
        if (key.starts_with(prefix)) {
            p[key.substr(prefix.size())] = value;
        }
    }
    const std::string kind = p.at("kind");
    if (kind == "step") {
        return std::make_shared<kael::optim::StepLR>(optimizer, integer(p, "step_size", 1), number(p, "gamma", 0.1));
    }
    if (kind == "multistep") {
        return std::make_shared<kael::optim::MultiStepLR>(optimizer, int_list(p, "milestones"), number(p, "gamma", 0.1));
    }
    if (kind == "exponential") {
        return std::make_shared<kael::optim::ExponentialLR>(optimizer, number(p, "gamma", 0.1));
    }
    if (kind == "linear") {
        return std::make_shared<kael::optim::LinearLR>(optimizer, number(p, "start_factor", 1.0 / 3),
                                                       number(p, "end_factor", 1.0), integer(p, "total_iters", 5));
    }
    if (kind == "cosine") {
        return std::make_shared<kael::optim::CosineAnnealingLR>(optimizer, integer(p, "T_max", 1), number(p, "eta_min", 0));
    }
    if (kind == "cosine_warmup") {
        return std::make_shared<kael::optim::CosineWithWarmupLR>(optimizer, integer(p, "warmup", 0), integer(p, "total", 1));
    }
    if (kind == "onecycle") {
        kael::optim::OneCycleOptions options;
        options.max_lr = number(p, "max_lr", 0);
        if (p.count("total_steps")) {
            options.total_steps = integer(p, "total_steps", 0);
        }
        if (p.count("epochs")) {
            options.epochs = integer(p, "epochs", 0);
            options.steps_per_epoch = integer(p, "steps_per_epoch", 0);
        }
        options.pct_start = number(p, "pct_start", 0.3);
        options.anneal_strategy = p.count("anneal") && p.at("anneal") == "linear" ? kael::optim::Anneal::Linear
                                                                                   : kael::optim::Anneal::Cos;
        options.cycle_momentum = integer(p, "cycle_momentum", 1) != 0;
        options.base_momentum = number(p, "base_momentum", 0.85);
        options.max_momentum = number(p, "max_momentum", 0.95);
        options.div_factor = number(p, "div_factor", 25);
        options.final_div_factor = number(p, "final_div_factor", 1e4);
        options.three_phase = integer(p, "three_phase", 0) != 0;
        return std::make_shared<kael::optim::OneCycleLR>(optimizer, options);
    }
    if (kind == "sequential") {
        std::vector<std::shared_ptr<kael::optim::LRScheduler>> schedules;
        for (std::int64_t i = 0;; ++i) {
            std::string child = "s";  // ("s" + std::to_string(i) trips GCC 12's -Wrestrict)
            child += std::to_string(i);
            child += '.';
            if (!p.count(child + "kind")) {
                break;
            }
            schedules.push_back(make_schedule(optimizer, p, child));
        }
        return std::make_shared<kael::optim::SequentialLR>(optimizer, std::move(schedules), int_list(p, "milestones"));
    }
    throw std::invalid_argument("unknown schedule " + kind);
}

// The state dict `state` as one vector of `as` (float64 unless given): the entries under
// `keys` (comma-separated) in that order, flattened. Throws if the dict has other keys, so
// that the comparison covers the layout as well as the values.
Tensor flat_state(const kael::nn::StateDict& state, const Params& p) {
    const std::string& keys = p.at("keys");
    const DType as = p.count("as") && p.at("as") == "float32" ? DType::F32 : DType::F64;
    std::vector<Tensor> pieces;
    std::istringstream list(keys);
    std::string key;
    std::size_t count = 0;
    while (std::getline(list, key, ',')) {
        pieces.push_back(state.at(key).to(as).reshape({-1}));
        ++count;
    }
    if (count != state.size()) {
        throw std::runtime_error("kael's state dict has " + std::to_string(state.size()) + " keys, torch's " +
                                 std::to_string(count));
    }
    return kael::cat(pieces);
}

// The bytes of a safetensors file that travelled as an int64 tensor, one byte per element.
std::vector<std::uint8_t> file_bytes(const Tensor& t);

// The learning rate before the first step and after each of `steps` more, then, with
// momenta=1, the optimizer's momentum (or beta1) at the same points.
Tensor schedule_trajectory(kael::optim::Optimizer& optimizer, kael::optim::LRScheduler& schedule, const Params& p) {
    std::vector<double> rates{optimizer.learning_rate()};
    std::vector<double> momenta{optimizer.momentum().value_or(0)};
    for (std::int64_t step = 0; step < integer(p, "steps", 0); ++step) {
        optimizer.step();
        schedule.step();
        rates.push_back(optimizer.learning_rate());
        momenta.push_back(optimizer.momentum().value_or(0));
    }
    if (integer(p, "momenta", 0) != 0) {
        rates.insert(rates.end(), momenta.begin(), momenta.end());
    }
    return kael::from_vector(rates);
}

// The elements of an int64 tensor.
std::vector<std::int64_t> int64_values(const Tensor& t) {
    const Tensor c = t.contiguous();
    return {c.data_ptr<std::int64_t>(), c.data_ptr<std::int64_t>() + c.numel()};
}

std::vector<std::uint8_t> file_bytes(const Tensor& t) {
    std::vector<std::uint8_t> bytes;
    for (const std::int64_t byte : int64_values(t)) {
        bytes.push_back(static_cast<std::uint8_t>(byte));
    }
    return bytes;
}

//< stage 8
kael::Reduction reduction(const Params& p) {
    const std::string r = p.count("reduction") ? p.at("reduction") : "mean";
    return r == "none" ? kael::Reduction::None : r == "sum" ? kael::Reduction::Sum : kael::Reduction::Mean;
}

//> stage 7
// The scenarios of autograd_scenarios() in check_against_torch.py, one program each; the
// inputs become leaves that require grad.
Tensor joined(const std::vector<Tensor>& tensors) {
    std::vector<Tensor> flat;
    for (const Tensor& t : tensors) {
        flat.push_back(t.detach().reshape({-1}).to(tensors.front().dtype()));
    }
    return kael::cat(flat, 0);
}

std::vector<Tensor> leaves(const std::vector<Tensor>& in) {
    std::vector<Tensor> out;
    for (const Tensor& t : in) {
        Tensor leaf = t.clone();
        leaf.requires_grad_();
        out.push_back(leaf);
    }
    return out;
}

void add_autograd_scenarios(std::map<std::string, Op>& ops) {
    auto scenario = [&](const std::string& name, std::function<Tensor(std::vector<Tensor>&)> program) {
        ops[name] = [program](const std::vector<Tensor>& in, const Params&) {
            std::vector<Tensor> x = leaves(in);
            return program(x);
        };
    };
    scenario("create_graph_gives_own_gradients", [](std::vector<Tensor>& x) {
        const Tensor loss = (x[0] + x[1]).sum();
        loss.backward(std::nullopt, true, true);
        loss.backward();
        return joined({*x[0].grad(), *x[1].grad()});
    });
    scenario("create_graph_copies_the_callers_gradient", [](std::vector<Tensor>& x) {
        const Tensor g = x[1].detach();
        x[0].clone().backward(g, false, true);
        x[0].clone().backward(g);
        return joined({*x[0].grad(), g});
    });
    scenario("hook_changes_the_size", [](std::vector<Tensor>& x) {
        x[0].register_hook([](const Tensor& g) -> std::optional<Tensor> { return kael::ones({5}, g.dtype()); });
        (x[0] * 2).sum().backward();
        return joined({*x[0].grad()});
    });
    scenario("second_backward_through_nodes_that_saved_nothing", [](std::vector<Tensor>& x) {
        const Tensor s = (x[0] + 2).expand({3, 4}).sum();
        s.backward();
        s.backward();
        return joined({*x[0].grad()});
    });
    scenario("write_through_a_select", [](std::vector<Tensor>& x) {
        Tensor y = x[0] * 3;
        y[0].mul_(2);
        (y * x[1].detach()).sum().backward();
        return joined({*x[0].grad()});
    });
    scenario("write_through_a_strided_slice", [](std::vector<Tensor>& x) {
        Tensor y = x[0] * 3;
        y.slice(1, 0, 4, 2).add_(x[1]);
        (y * y).sum().backward();
        return joined({*x[0].grad(), *x[1].grad()});
    });
    scenario("write_into_a_plain_buffer", [](std::vector<Tensor>& x) {
        Tensor buffer = kael::zeros({6}, x[0].dtype());
        const Tensor later = buffer.slice(0, 3, 6);
        buffer.slice(0, 0, 3).copy_(x[0].slice(0, 0, 3) * 2);
        (buffer * kael::arange(6, x[0].dtype())).sum().backward(std::nullopt, true);
        (later * 5).sum().backward();
        return joined({*x[0].grad()});
    });
    scenario("view_follows_its_written_base", [](std::vector<Tensor>& x) {
        Tensor y = x[0] * 2;
        const Tensor view = y.T();
        y.add_(1);
        (view * x[1].detach().T()).sum().backward();
        return joined({*x[0].grad()});
    });
    scenario("write_through_a_view_of_a_leaf", [](std::vector<Tensor>& x) {
        x[0].slice(0, 0, 2).mul_(2);
        return joined({x[0]});
    });
    scenario("retained_gradient_after_every_hook", [](std::vector<Tensor>& x) {
        const Tensor y = x[0] * 3;
        y.retain_grad();
        y.register_hook([](const Tensor& g) -> std::optional<Tensor> { return g * 10; });
        (y * 2).sum().backward();
        const Tensor flags = kael::from_vector<double>({x[0].retains_grad() ? 1.0 : 0.0, y.retains_grad() ? 1.0 : 0.0});
        return joined({*y.grad(), *x[0].grad(), flags});
    });
    scenario("dropout_of_everything", [](std::vector<Tensor>& x) {
        kael::dropout(x[0], 1.0, true).sum().backward();
        return joined({*x[0].grad()});
    });
    scenario("floor_divide_has_no_derivative", [](std::vector<Tensor>& x) {
        kael::floor_divide(x[0], 2).sum().backward();
        return joined({*x[0].grad()});
    });
    scenario("long_cumsum", [](std::vector<Tensor>& x) {
        (kael::cumsum(x[0], 0) * x[1].detach()).sum().backward();
        return joined({*x[0].grad()});
    });
}
//< stage 7

std::map<std::string, Op> operations() {
    std::map<std::string, Op> ops;
    auto binary = [&](const std::string& name, Tensor (*f)(const Tensor&, const Tensor&)) {
        ops[name] = [f](const std::vector<Tensor>& in, const Params&) { return f(in[0], in[1]); };
    };
    auto unary = [&](const std::string& name, Tensor (*f)(const Tensor&)) {
        ops[name] = [f](const std::vector<Tensor>& in, const Params&) { return f(in[0]); };
    };
    ops["add"] = [](const auto& in, const auto& p) { return kael::add(in[0], in[1], scalar_param(p, "alpha")); };
    ops["sub"] = [](const auto& in, const auto& p) { return kael::sub(in[0], in[1], scalar_param(p, "alpha")); };
    binary("mul", kael::mul);
    binary("div", kael::div);
    binary("floor_divide", kael::floor_divide);
    binary("remainder", kael::remainder);
    binary("pow", kael::pow);
    binary("maximum", kael::maximum);
    binary("minimum", kael::minimum);
    binary("atan2", kael::atan2);
    binary("matmul", kael::matmul);
    ops["add_scalar"] = [](const auto& in, const auto& p) { return kael::add(in[0], scalar_param(p, "value")); };
    ops["mul_scalar"] = [](const auto& in, const auto& p) { return kael::mul(in[0], scalar_param(p, "value")); };
    ops["div_scalar"] = [](const auto& in, const auto& p) { return kael::div(in[0], scalar_param(p, "value")); };
    ops["rsub_scalar"] = [](const auto& in, const auto& p) { return kael::sub(scalar_param(p, "value"), in[0]); };
    ops["rfloor_divide_scalar"] = [](const auto& in, const auto& p) { return kael::floor_divide(scalar_param(p, "value"), in[0]); };
    ops["rremainder_scalar"] = [](const auto& in, const auto& p) { return kael::remainder(scalar_param(p, "value"), in[0]); };
    ops["pow_scalar"] = [](const auto& in, const auto& p) { return kael::pow(in[0], scalar_param(p, "value")); };
    unary("neg", kael::neg);
    unary("abs", kael::abs);
    unary("exp", kael::exp);
    unary("log", kael::log);
    unary("log1p", kael::log1p);
    unary("expm1", kael::expm1);
    unary("sqrt", kael::sqrt);
    unary("rsqrt", kael::rsqrt);
    unary("sin", kael::sin);
    unary("cos", kael::cos);
    unary("tanh", kael::tanh);
    unary("sigmoid", kael::sigmoid);
    unary("relu", kael::relu);
    unary("silu", kael::silu);
    unary("sign", kael::sign);
    unary("floor", kael::floor);
    unary("ceil", kael::ceil);
    unary("round", kael::round);
    unary("isnan", kael::isnan);
    unary("isfinite", kael::isfinite);
    unary("logical_not", kael::logical_not);
    ops["gelu"] = [](const auto& in, const auto& p) { return kael::gelu(in[0], p.count("approximate") ? p.at("approximate") : "none"); };
    ops["clamp"] = [](const auto& in, const auto& p) {
        return kael::clamp(in[0], p.count("min") ? std::optional<kael::Scalar>(scalar_param(p, "min")) : std::nullopt,
                           p.count("max") ? std::optional<kael::Scalar>(scalar_param(p, "max")) : std::nullopt);
    };
    binary("eq", kael::eq);
    binary("ne", kael::ne);
    binary("lt", kael::lt);
    binary("le", kael::le);
    binary("gt", kael::gt);
    binary("ge", kael::ge);
    binary("logical_and", kael::logical_and);
    binary("logical_or", kael::logical_or);
    binary("logical_xor", kael::logical_xor);
    ops["where"] = [](const auto& in, const auto&) { return kael::where(in[0], in[1], in[2]); };
    ops["isclose"] = [](const auto& in, const auto& p) {
        return kael::isclose(in[0], in[1], number(p, "rtol", 1e-5), number(p, "atol", 1e-8), integer(p, "equal_nan", 0) != 0);
    };
    auto with_dims = [&](const std::string& name, Tensor (*f)(const Tensor&, const kael::Dims&, bool)) {
        ops[name] = [f](const auto& in, const auto& p) { return f(in[0], dims(p), integer(p, "keepdim", 0) != 0); };
    };
    with_dims("sum", kael::sum);
    with_dims("mean", kael::mean);
    with_dims("prod", kael::prod);
    with_dims("amax", kael::amax);
    with_dims("amin", kael::amin);
    with_dims("any", kael::any);
    with_dims("all", kael::all);
    with_dims("logsumexp", kael::logsumexp);
    ops["var"] = [](const auto& in, const auto& p) { return kael::var(in[0], dims(p), number(p, "correction", 1), integer(p, "keepdim", 0) != 0); };
    ops["std"] = [](const auto& in, const auto& p) { return kael::std(in[0], dims(p), number(p, "correction", 1), integer(p, "keepdim", 0) != 0); };
    ops["max_values"] = [](const auto& in, const auto& p) { return kael::max(in[0], integer(p, "dim", 0), integer(p, "keepdim", 0) != 0).values; };
    ops["max_indices"] = [](const auto& in, const auto& p) { return kael::max(in[0], integer(p, "dim", 0), integer(p, "keepdim", 0) != 0).indices; };
    ops["min_indices"] = [](const auto& in, const auto& p) { return kael::min(in[0], integer(p, "dim", 0), integer(p, "keepdim", 0) != 0).indices; };
    ops["argmax"] = [](const auto& in, const auto& p) { return p.count("dim") ? kael::argmax(in[0], integer(p, "dim", 0), integer(p, "keepdim", 0) != 0) : kael::argmax(in[0]); };
    ops["argmin"] = [](const auto& in, const auto& p) { return p.count("dim") ? kael::argmin(in[0], integer(p, "dim", 0), integer(p, "keepdim", 0) != 0) : kael::argmin(in[0]); };
    ops["cumsum"] = [](const auto& in, const auto& p) { return kael::cumsum(in[0], integer(p, "dim", 0)); };
    ops["softmax"] = [](const auto& in, const auto& p) { return kael::softmax(in[0], integer(p, "dim", -1)); };
    ops["log_softmax"] = [](const auto& in, const auto& p) { return kael::log_softmax(in[0], integer(p, "dim", -1)); };
    ops["cross_entropy"] = [](const auto& in, const auto& p) { return kael::cross_entropy(in[0], in[1], reduction(p), integer(p, "ignore_index", -100)); };
    ops["nll_loss"] = [](const auto& in, const auto& p) { return kael::nll_loss(in[0], in[1], reduction(p), integer(p, "ignore_index", -100)); };
    ops["mse_loss"] = [](const auto& in, const auto& p) { return kael::mse_loss(in[0], in[1], reduction(p)); };
    ops["layer_norm"] = [](const auto& in, const auto& p) {
        const auto trailing = static_cast<std::size_t>(integer(p, "trailing", 1));
        const kael::Shape normalized(in[0].shape().end() - static_cast<std::ptrdiff_t>(trailing), in[0].shape().end());
        return kael::layer_norm(in[0], normalized, in.size() > 1 ? std::optional<Tensor>(in[1]) : std::nullopt,
                                in.size() > 2 ? std::optional<Tensor>(in[2]) : std::nullopt, number(p, "eps", 1e-5));
    };
    ops["embedding"] = [](const auto& in, const auto&) { return kael::embedding(in[0], in[1]); };
    ops["index_select"] = [](const auto& in, const auto& p) { return kael::index_select(in[0], integer(p, "dim", 0), in[1]); };
    ops["gather"] = [](const auto& in, const auto& p) { return kael::gather(in[0], integer(p, "dim", 0), in[1]); };
    ops["scatter_add"] = [](const auto& in, const auto& p) { return kael::scatter_add(in[0], integer(p, "dim", 0), in[1], in[2]); };
    ops["masked_fill"] = [](const auto& in, const auto& p) { return kael::masked_fill(in[0], in[1], scalar_param(p, "value")); };
    ops["tril"] = [](const auto& in, const auto& p) { return kael::tril(in[0], integer(p, "diagonal", 0)); };
    ops["triu"] = [](const auto& in, const auto& p) { return kael::triu(in[0], integer(p, "diagonal", 0)); };
    ops["one_hot"] = [](const auto& in, const auto& p) { return kael::one_hot(in[0], integer(p, "num_classes", -1)); };
    ops["cat"] = [](const auto& in, const auto& p) { return kael::cat(in, integer(p, "dim", 0)); };
    ops["stack"] = [](const auto& in, const auto& p) { return kael::stack(in, integer(p, "dim", 0)); };
    ops["transpose_contiguous"] = [](const auto& in, const auto& p) { return in[0].transpose(integer(p, "a", 0), integer(p, "b", 1)).contiguous(); };
    ops["slice"] = [](const auto& in, const auto& p) {
        return in[0].slice(integer(p, "dim", 0), integer(p, "start", 0), integer(p, "end", 1 << 30), integer(p, "step", 1)).contiguous();
    };
    // Views and splits; the result is made contiguous so that only its values are compared.
    ops["reshape"] = [](const auto& in, const auto& p) { return in[0].reshape(int_list(p, "shape")).contiguous(); };
    ops["view"] = [](const auto& in, const auto& p) { return in[0].view(int_list(p, "shape")).contiguous(); };
    ops["permute"] = [](const auto& in, const auto& p) { return in[0].permute(int_list(p, "dims")).contiguous(); };
    ops["squeeze"] = [](const auto& in, const auto& p) {
        return (p.count("dim") ? in[0].squeeze(integer(p, "dim", 0)) : in[0].squeeze()).contiguous();
    };
    ops["unsqueeze"] = [](const auto& in, const auto& p) { return in[0].unsqueeze(integer(p, "dim", 0)).contiguous(); };
    ops["flatten"] = [](const auto& in, const auto& p) {
        return in[0].flatten(integer(p, "start", 0), integer(p, "end", -1)).contiguous();
    };
    ops["unflatten"] = [](const auto& in, const auto& p) {
        return in[0].unflatten(integer(p, "dim", 0), int_list(p, "shape")).contiguous();
    };
    ops["narrow"] = [](const auto& in, const auto& p) {
        return in[0].narrow(integer(p, "dim", 0), integer(p, "start", 0), integer(p, "length", 0)).contiguous();
    };
    ops["select"] = [](const auto& in, const auto& p) { return in[0].select(integer(p, "dim", 0), integer(p, "index", 0)).contiguous(); };
    ops["expand"] = [](const auto& in, const auto& p) { return in[0].expand(int_list(p, "shape")).contiguous(); };
    ops["split"] = [](const auto& in, const auto& p) {
        const auto pieces = p.count("sizes") ? kael::split(in[0], int_list(p, "sizes"), integer(p, "dim", 0))
                                             : kael::split(in[0], integer(p, "size", 1), integer(p, "dim", 0));
        return pieces.at(static_cast<std::size_t>(integer(p, "piece", 0))).contiguous();
    };
    ops["split_count"] = [](const auto& in, const auto& p) {
        const auto pieces = p.count("chunks") ? kael::chunk(in[0], integer(p, "chunks", 1), integer(p, "dim", 0))
                                              : kael::split(in[0], integer(p, "size", 1), integer(p, "dim", 0));
        return kael::scalar(static_cast<std::int64_t>(pieces.size()), kael::DType::I64);
    };
    ops["chunk"] = [](const auto& in, const auto& p) {
        const auto pieces = kael::chunk(in[0], integer(p, "chunks", 1), integer(p, "dim", 0));
        return pieces.at(static_cast<std::size_t>(integer(p, "piece", 0))).contiguous();
    };
    // In-place operations write into a copy of the first input and return it.
    ops["add_"] = [](const auto& in, const auto&) { Tensor self = in[0].clone(); self.add_(in[1]); return self; };
    ops["sub_"] = [](const auto& in, const auto&) { Tensor self = in[0].clone(); self.sub_(in[1]); return self; };
    ops["mul_"] = [](const auto& in, const auto&) { Tensor self = in[0].clone(); self.mul_(in[1]); return self; };
    ops["div_"] = [](const auto& in, const auto&) { Tensor self = in[0].clone(); self.div_(in[1]); return self; };
    ops["copy_"] = [](const auto& in, const auto&) { Tensor self = in[0].clone(); self.copy_(in[1]); return self; };
    ops["add_scalar_"] = [](const auto& in, const auto& p) { Tensor self = in[0].clone(); self.add_(scalar_param(p, "value")); return self; };
    ops["div_scalar_"] = [](const auto& in, const auto& p) { Tensor self = in[0].clone(); self.div_(scalar_param(p, "value")); return self; };
    ops["masked_fill_"] = [](const auto& in, const auto& p) {
        Tensor self = in[0].clone();
        self.masked_fill_(in[1], scalar_param(p, "value"));
        return self;
    };
//> stage 7
    // The autograd refusals: each either throws (as PyTorch does) or returns a gradient.
    ops["inplace_on_leaf"] = [](const auto& in, const auto&) {
        Tensor x = in[0];
        x.requires_grad_();
        x.add_(1);
        return x;
    };
    ops["backward_twice"] = [](const auto& in, const auto&) {
        Tensor x = in[0];
        x.requires_grad_();
        const Tensor loss = (x * x).sum();
        loss.backward();
        loss.backward();
        return *x.grad();
    };
    ops["modified_saved_output"] = [](const auto& in, const auto&) {
        Tensor x = in[0];
        x.requires_grad_();
        Tensor y = kael::exp(x);
        y.add_(1);
        y.sum().backward();
        return *x.grad();
    };
    ops["non_scalar_backward"] = [](const auto& in, const auto&) {
        Tensor x = in[0];
        x.requires_grad_();
        (x * 2).backward();
        return *x.grad();
    };
    add_autograd_scenarios(ops);
    ops["gelu_tanh"] = [](const auto& in, const auto&) { return kael::gelu(in[0], "tanh"); };
    ops["stack_dim"] = [](const auto& in, const auto& p) { return kael::stack(in, integer(p, "dim", 0)); };
//< stage 7
//> stage 8
    // "optimize": in[0] is the starting parameter, in[1] one gradient per step stacked along
    // dimension 0; the result stacks the parameter after each step. With strided=1 the
    // parameter is every other element of a buffer twice as long along its last dimension:
    // a layout with gaps, which takes Adam's tensor path instead of its loop. With
    // strided=2 it is stored transposed, which the loop walks in memory order.
    ops["optimize"] = [](const auto& in, const auto& p) {
        Tensor param = integer(p, "strided", 0) == 2 ? in[0].T().contiguous().T() : in[0].clone();
        if (integer(p, "strided", 0) == 1) {
            kael::Shape wide = in[0].shape();
            wide.back() *= 2;
            param = kael::zeros(wide, in[0].dtype()).slice(-1, 0, wide.back(), 2);
            param.copy_(in[0]);
        }
        param.requires_grad_();
        const auto optimizer = make_optimizer({param}, p);
        std::vector<Tensor> trajectory;
        for (std::int64_t step = 0; step < in[1].size(0); ++step) {
            param.set_grad(in[1].select(0, step).contiguous());
            optimizer->step();
            trajectory.push_back(param.detach().clone());
        }
        return kael::stack(trajectory);
    };
    // "schedule": the schedule that the parameters name, on an SGD or Adam optimizer with
    // rate 0.1 (and momentum=...); the result is schedule_trajectory's.
    const auto schedule_optimizer = [](const Params& p) {
        Tensor param = kael::zeros({1});
        param.requires_grad_();
        Params settings{{"optimizer", p.count("optimizer") ? p.at("optimizer") : "sgd"}, {"lr", "0.1"}};
        if (p.count("momentum")) {
            settings["momentum"] = p.at("momentum");
        }
        return make_optimizer({param}, settings);
    };
    ops["schedule"] = [schedule_optimizer](const auto&, const auto& p) {
        const auto optimizer = schedule_optimizer(p);
        const auto schedule = make_schedule(*optimizer, p, "");
        return schedule_trajectory(*optimizer, *schedule, p);
    };
    // "schedule_state": the state dict of the schedule after `steps` steps, as flat_state.
    ops["schedule_state"] = [schedule_optimizer](const auto&, const auto& p) {
        const auto optimizer = schedule_optimizer(p);
        const auto schedule = make_schedule(*optimizer, p, "");
        for (std::int64_t step = 0; step < integer(p, "steps", 0); ++step) {
            schedule->step();
        }
        return flat_state(schedule->state_dict(), p);
    };
    // "schedule_resume": in[0] is a safetensors file of torch's schedule state in kael's
    // layout; a new optimizer and schedule load it and go on, as schedule_trajectory.
    ops["schedule_resume"] = [schedule_optimizer](const auto& in, const auto& p) {
        const auto optimizer = schedule_optimizer(p);
        const auto schedule = make_schedule(*optimizer, p, "");
        schedule->load_state_dict(kael::io::from_safetensors_bytes(file_bytes(in[0])));
        return schedule_trajectory(*optimizer, *schedule, p);
    };
    // "optimizer_state": in[0] and in[1] are two parameters, in[2] and in[3] their
    // gradients at each step; the second gets none on the first step. The result is the
    // state dict after the last step, as flat_state.
    ops["optimizer_state"] = [](const auto& in, const auto& p) {
        Tensor a = in[0].clone();
        Tensor b = in[1].clone();
        a.requires_grad_();
        b.requires_grad_();
        const auto optimizer = make_optimizer({a, b}, p);
        for (std::int64_t step = 0; step < in[2].size(0); ++step) {
            a.set_grad(in[2].select(0, step).contiguous());
            b.set_grad(step == 0 ? std::nullopt : std::optional<Tensor>(in[3].select(0, step).contiguous()));
            optimizer->step();
        }
        return flat_state(optimizer->state_dict(), p);
    };
    // "optimizer_resume": in[0] and in[1] are torch's parameters after some steps, in[4]
    // torch's optimizer state then (a safetensors file in kael's layout). An optimizer of
    // the named kind, built with its defaults, loads it and steps on with the gradients
    // in[2] and in[3]; the result stacks both parameters, flattened, after each step.
    ops["optimizer_resume"] = [](const auto& in, const auto& p) {
        Tensor a = in[0].clone();
        Tensor b = in[1].clone();
        a.requires_grad_();
        b.requires_grad_();
        const auto optimizer = make_optimizer({a, b}, {{"optimizer", p.at("optimizer")}});
        optimizer->load_state_dict(kael::io::from_safetensors_bytes(file_bytes(in[4])));
        std::vector<Tensor> trajectory;
        for (std::int64_t step = 0; step < in[2].size(0); ++step) {
            a.set_grad(in[2].select(0, step).contiguous());
            b.set_grad(in[3].select(0, step).contiguous());
            optimizer->step();
            trajectory.push_back(kael::cat({a.detach().reshape({-1}), b.detach().reshape({-1})}));
        }
        return kael::stack(trajectory);
    };
    // "clip_grad_norm": the inputs are gradients; the result is the clipped gradients,
    // flattened and joined, then the total norm.
    ops["clip_grad_norm"] = [](const auto& in, const auto& p) {
        std::vector<Tensor> params;
        std::vector<Tensor> pieces;
        for (const Tensor& g : in) {
            params.push_back(kael::zeros_like(g));
            params.back().set_grad(g.clone());
        }
        const Tensor total = kael::nn::clip_grad_norm_(params, number(p, "max_norm", 1), number(p, "norm_type", 2));
        for (const Tensor& param : params) {
            pieces.push_back(param.grad()->reshape({-1}));
        }
        pieces.push_back(total.reshape({1}).to(in[0].dtype()));
        return kael::cat(pieces);
    };
    // "train_mlp": x, y and the weights of a 5-7-3 MLP, loaded with load_state_dict, then 8
    // steps; the result is the 8 losses followed by the final parameters.
    ops["train_mlp"] = [](const auto& in, const auto& p) {
        std::shared_ptr<kael::nn::UnaryModule> activation;
        if (p.at("activation") == "gelu") {
            activation = std::make_shared<kael::nn::GELU>();
        } else {
            activation = std::make_shared<kael::nn::ReLU>();
        }
        kael::nn::Sequential model({std::make_shared<kael::nn::Linear>(5, 7), activation,
                                    std::make_shared<kael::nn::Linear>(7, 3)});
        model.to(in[0].dtype());
        kael::nn::StateDict weights;
        weights.insert("0.weight", in[2]);
        weights.insert("0.bias", in[3]);
        weights.insert("2.weight", in[4]);
        weights.insert("2.bias", in[5]);
        model.load_state_dict(weights);
        const auto optimizer = make_optimizer(model.parameters(), p);
        const double clip = number(p, "clip", 0);
        std::vector<Tensor> pieces;
        for (int step = 0; step < 8; ++step) {
            optimizer->zero_grad();
            const Tensor loss = kael::cross_entropy(model(in[0]), in[1]);
            loss.backward();
            if (clip > 0) {
                (void)kael::nn::clip_grad_norm_(model.parameters(), clip);
            }
            optimizer->step();
            pieces.push_back(loss.detach().reshape({1}));
        }
        for (const auto& [name, tensor] : model.state_dict()) {
            pieces.push_back(tensor.detach().reshape({-1}));
        }
        return kael::cat(pieces);
    };
    // "safetensors": in[0] holds the bytes of a file, one per int64 element; the result is
    // the tensor stored under `name`.
    ops["safetensors"] = [](const auto& in, const auto& p) {
        return kael::io::from_safetensors_bytes(file_bytes(in[0])).at(p.at("name"));
    };
//< stage 8
    // Factories take no inputs.
    ops["arange"] = [](const auto&, const auto& p) {
        return kael::arange(number(p, "start", 0), number(p, "end", 0), number(p, "step", 1), parse_dtype(p.at("dtype")));
    };
    ops["linspace"] = [](const auto&, const auto& p) {
        return kael::linspace(number(p, "start", 0), number(p, "end", 0), integer(p, "steps", 0), parse_dtype(p.at("dtype")));
    };
    ops["eye"] = [](const auto&, const auto& p) { return kael::eye(integer(p, "n", 0), parse_dtype(p.at("dtype"))); };
    ops["to"] = [](const auto& in, const auto& p) { return in[0].to(parse_dtype(p.at("dtype"))); };
    // "strides of=OP": the strides of OP's result, as int64, for the layout a new output gets.
    const std::map<std::string, Op> plain = ops;
    ops["strides"] = [plain](const auto& in, const auto& p) {
        const Tensor result = plain.at(p.at("of"))(in, p);
        return kael::from_vector(std::vector<std::int64_t>(result.strides().begin(), result.strides().end()));
    };
    return ops;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::cerr << "usage: driver CASE_FILE OUTPUT_DIR\n";
        return 2;
    }
    const auto ops = operations();
    std::ifstream cases(argv[1]);
    const std::string out_dir = argv[2];
    std::string line;
    while (std::getline(cases, line)) {
        std::istringstream words(line);
        std::string name, op, word;
        words >> name >> op;
        Params params;
        std::vector<Tensor> inputs;
        bool after_colon = false;
        while (words >> word) {
            if (word == ":") {
                after_colon = true;
            } else if (after_colon) {
                inputs.push_back(read_tensor(word));
            } else {
                const auto eq = word.find('=');
                params[word.substr(0, eq)] = word.substr(eq + 1);
            }
        }
        try {
            // A transposed view of every 2-d+ input exercises the strided paths too.
            if (params.count("transposed")) {
                for (auto& t : inputs) {
                    if (t.dim() >= 2) {
                        t = t.transpose(0, 1).contiguous().transpose(0, 1);
                    }
                }
            }
            for (std::size_t i = 0; i < inputs.size(); ++i) {
                std::string key = "v";  // ("v" + std::to_string(i) trips GCC 12's -Wrestrict)
                key += std::to_string(i);
                const auto recipe = params.find(key);
                if (recipe != params.end()) {
                    inputs[i] = apply_view_recipe(inputs[i], recipe->second);
                }
            }
//> stage 7
            // "grad=1": every floating point input becomes a leaf that requires grad, and
            // the gradients of sum(result * weights) are written as <case>.g<i>.bin, or
            // <case>.g<i>.none for an input that gets none (weights_k = sin(k + 1), which
            // the script computes the same way).
            const bool with_grad = params.count("grad") != 0;
            std::vector<std::size_t> leaves;
            for (std::size_t i = 0; with_grad && i < inputs.size(); ++i) {
                if (kael::is_floating_point(inputs[i].dtype())) {
                    inputs[i].requires_grad_();
                    leaves.push_back(i);
                }
            }
            if (with_grad) {
                const Tensor result = ops.at(op)(inputs, params);
                write_tensor(out_dir + "/" + name + ".bin", result);
                if (!result.requires_grad()) {
                    std::ofstream(out_dir + "/" + name + ".nograd") << "no grad";
                    continue;
                }
                const Tensor weights = kael::sin(kael::arange(1, static_cast<double>(result.numel()) + 1, 1, DType::F64))
                                           .reshape(result.shape())
                                           .to(result.dtype());
                std::vector<Tensor> wrt;
                for (const std::size_t i : leaves) {
                    wrt.push_back(inputs[i]);
                }
                const kael::autograd::GradList grads = kael::autograd::grad({result}, wrt, {weights}, false, false, true);
                for (std::size_t k = 0; k < leaves.size(); ++k) {
                    const std::string file = out_dir + "/" + name + ".g" + std::to_string(leaves[k]);
                    if (grads[k]) {
                        write_tensor(file + ".bin", *grads[k]);
                    } else {
                        std::ofstream(file + ".none") << "none";
                    }
                }
                continue;
            }
//< stage 7
            write_tensor(out_dir + "/" + name + ".bin", ops.at(op)(inputs, params));
        } catch (const std::exception& error) {
            std::ofstream(out_dir + "/" + name + ".error") << error.what();
        }
    }
    return 0;
}
