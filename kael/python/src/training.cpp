// What training needs from C++ (chapter 10): the initialisers of kael::nn::init, so that
// kael.nn's Python modules draw their weights exactly as the C++ modules do, and the
// optimizers, which update the very impls the Python parameters hold. The modules
// themselves are Python classes (kael/nn/), so that a user subclasses them as in PyTorch.
#include <pybind11/stl.h>

#include <memory>
#include <string>

#include "bindings.h"
#include "casters.h"

namespace kael::python {
namespace py = pybind11;
namespace {

using Release = py::call_guard<py::gil_scoped_release>;

// A state dict as Python sees one: a dict from names to tensors, in the C++ order.
py::dict to_python(const nn::StateDict& state) {
    py::dict out;
    for (const auto& [name, tensor] : state) {
        out[py::str(name)] = tensor;
    }
    return out;
}

nn::StateDict from_python(const py::dict& state) {
    nn::StateDict out;
    for (const auto& [name, tensor] : state) {
        out.insert(py::str(name), tensor.cast<Tensor>());
    }
    return out;
}

nn::init::Nonlinearity nonlinearity_of(const std::string& name) {
    using nn::init::Nonlinearity;
    if (name == "linear") {
        return Nonlinearity::Linear;
    }
    if (name == "sigmoid") {
        return Nonlinearity::Sigmoid;
    }
    if (name == "tanh") {
        return Nonlinearity::Tanh;
    }
    if (name == "relu") {
        return Nonlinearity::Relu;
    }
    KAEL_CHECK_VALUE(name == "leaky_relu", "unsupported nonlinearity '" << name
                                               << "'; kael knows linear, sigmoid, tanh, relu and leaky_relu");
    return Nonlinearity::LeakyRelu;
}

nn::init::FanMode fan_mode_of(const std::string& mode) {
    KAEL_CHECK_VALUE(mode == "fan_in" || mode == "fan_out", "mode must be 'fan_in' or 'fan_out', got '" << mode << "'");
    return mode == "fan_in" ? nn::init::FanMode::FanIn : nn::init::FanMode::FanOut;
}

void bind_init(py::module_& m) {
    py::module_ init = m.def_submodule("init", "kael::nn::init: PyTorch's initialisers, in place");
    init.def("uniform_", [](Tensor& t, double a, double b) { return nn::init::uniform_(t, a, b); }, py::arg("tensor"),
             py::arg("a") = 0.0, py::arg("b") = 1.0, Release());
    init.def("normal_", [](Tensor& t, double mean, double std) { return nn::init::normal_(t, mean, std); },
             py::arg("tensor"), py::arg("mean") = 0.0, py::arg("std") = 1.0, Release());
    init.def("constant_", [](Tensor& t, double value) { return nn::init::constant_(t, value); }, py::arg("tensor"),
             py::arg("val"), Release());
    init.def("zeros_", [](Tensor& t) { return nn::init::zeros_(t); }, py::arg("tensor"), Release());
    init.def("ones_", [](Tensor& t) { return nn::init::ones_(t); }, py::arg("tensor"), Release());
    init.def("kaiming_uniform_",
             [](Tensor& t, double a, const std::string& mode, const std::string& nonlinearity) {
                 return nn::init::kaiming_uniform_(t, a, fan_mode_of(mode), nonlinearity_of(nonlinearity));
             },
             py::arg("tensor"), py::arg("a") = 0.0, py::arg("mode") = "fan_in", py::arg("nonlinearity") = "leaky_relu");
    init.def("kaiming_normal_",
             [](Tensor& t, double a, const std::string& mode, const std::string& nonlinearity) {
                 return nn::init::kaiming_normal_(t, a, fan_mode_of(mode), nonlinearity_of(nonlinearity));
             },
             py::arg("tensor"), py::arg("a") = 0.0, py::arg("mode") = "fan_in", py::arg("nonlinearity") = "leaky_relu");
    init.def("xavier_uniform_", [](Tensor& t, double gain) { return nn::init::xavier_uniform_(t, gain); },
             py::arg("tensor"), py::arg("gain") = 1.0, Release());
    init.def("xavier_normal_", [](Tensor& t, double gain) { return nn::init::xavier_normal_(t, gain); },
             py::arg("tensor"), py::arg("gain") = 1.0, Release());
    init.def("calculate_gain",
             [](const std::string& nonlinearity, double param) {
                 return nn::init::calculate_gain(nonlinearity_of(nonlinearity), param);
             },
             py::arg("nonlinearity"), py::arg("param") = 0.01);
}

void bind_optimizers(py::module_& m) {
    py::module_ optim = m.def_submodule("optim", "kael::optim: optimizers over the parameters' own impls");
    py::class_<optim::Optimizer, std::shared_ptr<optim::Optimizer>>(optim, "Optimizer")
        .def("step", &optim::Optimizer::step, Release())
        .def("zero_grad", &optim::Optimizer::zero_grad, py::arg("set_to_none") = true)
        .def_property("lr", &optim::Optimizer::learning_rate, &optim::Optimizer::set_learning_rate)
        .def("state_dict",
             [](const optim::Optimizer& optimizer) { return to_python(optimizer.state_dict()); })
        .def("load_state_dict",
             [](optim::Optimizer& optimizer, const py::dict& state) { optimizer.load_state_dict(from_python(state)); },
             py::arg("state_dict"))
        .def("__repr__", [](const optim::Optimizer& optimizer) { return std::string(optimizer.name()) + "()"; });
    py::class_<optim::Sgd, optim::Optimizer, std::shared_ptr<optim::Sgd>>(optim, "SGD")
        .def(py::init([](const std::vector<Tensor>& params, double lr, double momentum, double dampening,
                         double weight_decay, bool nesterov, bool maximize) {
                 return std::make_shared<optim::Sgd>(params, optim::SgdOptions{lr, momentum, dampening, weight_decay,
                                                                               nesterov, maximize});
             }),
             py::arg("params"), py::arg("lr") = 1e-3, py::arg("momentum") = 0.0, py::arg("dampening") = 0.0,
             py::arg("weight_decay") = 0.0, py::arg("nesterov") = false, py::arg("maximize") = false);
    const auto adam_options = [](double lr, const std::pair<double, double>& betas, double eps, double weight_decay,
                                 bool amsgrad, bool maximize) {
        return optim::AdamOptions{lr, betas.first, betas.second, eps, weight_decay, amsgrad, maximize};
    };
    py::class_<optim::Adam, optim::Optimizer, std::shared_ptr<optim::Adam>>(optim, "Adam")
        .def(py::init([adam_options](const std::vector<Tensor>& params, double lr, const std::pair<double, double>& betas,
                                     double eps, double weight_decay, bool amsgrad, bool maximize) {
                 return std::make_shared<optim::Adam>(params, adam_options(lr, betas, eps, weight_decay, amsgrad, maximize));
             }),
             py::arg("params"), py::arg("lr") = 1e-3, py::arg("betas") = std::pair{0.9, 0.999}, py::arg("eps") = 1e-8,
             py::arg("weight_decay") = 0.0, py::arg("amsgrad") = false, py::arg("maximize") = false);
    py::class_<optim::AdamW, optim::Adam, std::shared_ptr<optim::AdamW>>(optim, "AdamW")
        .def(py::init([adam_options](const std::vector<Tensor>& params, double lr, const std::pair<double, double>& betas,
                                     double eps, double weight_decay, bool amsgrad, bool maximize) {
                 return std::make_shared<optim::AdamW>(params,
                                                       adam_options(lr, betas, eps, weight_decay, amsgrad, maximize));
             }),
             py::arg("params"), py::arg("lr") = 1e-3, py::arg("betas") = std::pair{0.9, 0.999}, py::arg("eps") = 1e-8,
             py::arg("weight_decay") = 1e-2, py::arg("amsgrad") = false, py::arg("maximize") = false);
    optim.def("clip_grad_norm_",
              [](const std::vector<Tensor>& parameters, double max_norm, double norm_type, bool error_if_nonfinite) {
                  return nn::clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite);
              },
              py::arg("parameters"), py::arg("max_norm"), py::arg("norm_type") = 2.0,
              py::arg("error_if_nonfinite") = false, Release());
}

void bind_functional(py::module_& m) {
    py::module_ functional = m.def_submodule("functional", "the operations of kael's nn layer");
    const auto reduction_of = [](const std::string& name) {
        KAEL_CHECK_VALUE(name == "mean" || name == "sum" || name == "none",
                         "reduction must be 'mean', 'sum' or 'none', got '" << name << "'");
        return name == "mean" ? Reduction::Mean : name == "sum" ? Reduction::Sum : Reduction::None;
    };
    functional.def("cross_entropy",
                   [reduction_of](const Tensor& input, const Tensor& target, const std::string& reduction,
                                  std::int64_t ignore_index) {
                       return kael::cross_entropy(input, target, reduction_of(reduction), ignore_index);
                   },
                   py::arg("input"), py::arg("target"), py::arg("reduction") = "mean", py::arg("ignore_index") = -100);
    functional.def("nll_loss",
                   [reduction_of](const Tensor& input, const Tensor& target, const std::string& reduction,
                                  std::int64_t ignore_index) {
                       return kael::nll_loss(input, target, reduction_of(reduction), ignore_index);
                   },
                   py::arg("input"), py::arg("target"), py::arg("reduction") = "mean", py::arg("ignore_index") = -100);
    functional.def("mse_loss",
                   [reduction_of](const Tensor& input, const Tensor& target, const std::string& reduction) {
                       return kael::mse_loss(input, target, reduction_of(reduction));
                   },
                   py::arg("input"), py::arg("target"), py::arg("reduction") = "mean");
    functional.def("layer_norm",
                   [](const Tensor& input, const Shape& shape, const std::optional<Tensor>& weight,
                      const std::optional<Tensor>& bias, double eps) {
                       return kael::layer_norm(input, shape, weight, bias, eps);
                   },
                   py::arg("input"), py::arg("normalized_shape"), py::arg("weight") = py::none(),
                   py::arg("bias") = py::none(), py::arg("eps") = 1e-5);
    functional.def("dropout", [](const Tensor& input, double p, bool training) { return kael::dropout(input, p, training); },
                   py::arg("input"), py::arg("p") = 0.5, py::arg("training") = true);
    functional.def("embedding", [](const Tensor& input, const Tensor& weight) { return kael::embedding(weight, input); },
                   py::arg("input"), py::arg("weight"));
}

//> stage 12
// Chapter 11's GPT, the C++ module as it is: its parameters are the tensors the C++ model
// computes with, so kael.optim trains it from Python.
void bind_gpt(py::module_& m) {
    py::class_<nn::GPT, std::shared_ptr<nn::GPT>>(m, "GPT")
        .def(py::init([](std::int64_t vocab_size, std::int64_t block_size, std::int64_t n_layer, std::int64_t n_head,
                         std::int64_t n_embd, double dropout, bool fused_attention) {
                 return std::make_shared<nn::GPT>(nn::GPTConfig{vocab_size, block_size, n_layer, n_head, n_embd,
                                                                dropout, 1e-5, fused_attention});
             }),
             py::arg("vocab_size"), py::arg("block_size"), py::arg("n_layer"), py::arg("n_head"), py::arg("n_embd"),
             py::arg("dropout") = 0.0, py::arg("fused_attention") = true)
        .def("__call__", [](nn::GPT& model, const Tensor& indices) { return model(indices); }, py::arg("indices"),
             Release())
        .def("forward", [](nn::GPT& model, const Tensor& indices) { return model(indices); }, py::arg("indices"),
             Release())
        .def("parameters", [](const nn::GPT& model) { return model.parameters(); })
        .def("named_parameters", [](const nn::GPT& model) { return model.named_parameters(); })
        .def("num_parameters", &nn::GPT::num_parameters)
        .def("train", [](nn::GPT& model, bool on) { model.train(on); }, py::arg("mode") = true)
        .def("eval", [](nn::GPT& model) { model.eval(); })
        .def("to", [](nn::GPT& model, Device device) { model.to(device); }, py::arg("device"))
        .def("state_dict",
             [](const nn::GPT& model) { return to_python(model.state_dict()); })
        .def("load_state_dict",
             [](nn::GPT& model, const py::dict& state) { model.load_state_dict(from_python(state)); },
             py::arg("state_dict"));
}
//< stage 12

}  // namespace

void bind_training(py::module_& m) {
    py::module_ nn_module = m.def_submodule("nn", "the C++ half of kael.nn");
    bind_init(nn_module);
    bind_functional(nn_module);
//> stage 12
    bind_gpt(nn_module);
//< stage 12
    bind_optimizers(m);
}

}  // namespace kael::python
