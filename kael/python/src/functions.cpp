// The operations from Python (chapter 10): each is a module function, kael.exp(t), and a
// method, t.exp(), with PyTorch's argument names. A second operand may be a tensor or a
// Python number; the number becomes a Scalar of its kind (casters.h), so `t + 1` promotes
// exactly as t.add(Scalar(1)) does in C++. The GIL is released while kernels run, so
// Python threads can compute in parallel: every argument is converted to C++ before the
// call and every result to Python after it, so no Python object is touched without the
// GIL (a `dim` is read by DimList's caster, and (values, indices) is returned as a pair).
#include <pybind11/stl.h>

#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "arguments.h"
#include "bindings.h"
#include "casters.h"
#include "return_types.h"

namespace kael::python {
namespace py = pybind11;
namespace {

using Release = py::call_guard<py::gil_scoped_release>;

// Binds `f` twice: as kael.<name>(input, ...) and as the method Tensor.<name>(...). `names`
// are the arguments after the tensor.
template <typename F, typename... Names>
void both(py::module_& m, py::class_<PyTensor>& tensor, const char* name, F f, const Names&... names) {
    tensor.def(name, f, names..., Release());
    m.def(name, f, py::arg("input"), names..., Release());
}

// A function of two operands whose second may be a number: one overload for each.
template <typename WithTensor, typename WithNumber>
void both_binary(py::module_& m, py::class_<PyTensor>& tensor, const char* name, WithTensor with_tensor,
                 WithNumber with_number) {
    both(m, tensor, name, with_tensor, py::arg("other"));
    both(m, tensor, name, with_number, py::arg("other"));
}


void bind_elementwise(py::module_& m, py::class_<PyTensor>& tensor) {
    using Unary = Tensor (*)(const Tensor&);
    const std::vector<std::pair<const char*, Unary>> unary = {
        {"neg", kael::neg},       {"abs", kael::abs},         {"sign", kael::sign},           {"exp", kael::exp},
        {"log", kael::log},       {"log1p", kael::log1p},     {"expm1", kael::expm1},         {"sqrt", kael::sqrt},
        {"rsqrt", kael::rsqrt},   {"sin", kael::sin},         {"cos", kael::cos},             {"tanh", kael::tanh},
        {"sigmoid", kael::sigmoid}, {"relu", kael::relu},     {"silu", kael::silu},           {"floor", kael::floor},
        {"ceil", kael::ceil},     {"round", kael::round},     {"logical_not", kael::logical_not},
        {"isnan", kael::isnan},   {"isinf", kael::isinf},     {"isfinite", kael::isfinite},
    };
    for (const auto& [name, f] : unary) {
        both(m, tensor, name, f);
    }
    both(m, tensor, "gelu", [](const Tensor& t, const std::string& approximate) { return kael::gelu(t, approximate); },
         py::arg("approximate") = "none");
    both(m, tensor, "clamp",
         [](const Tensor& t, std::optional<Scalar> min, std::optional<Scalar> max) { return kael::clamp(t, min, max); },
         py::arg("min") = py::none(), py::arg("max") = py::none());

    both(m, tensor, "add", [](const Tensor& a, const Tensor& b, Scalar alpha) { return kael::add(a, b, alpha); },
         py::arg("other"), py::arg("alpha") = 1);
    both(m, tensor, "add", [](const Tensor& a, Scalar b, Scalar alpha) { return kael::add(a, b, alpha); },
         py::arg("other"), py::arg("alpha") = 1);
    both(m, tensor, "sub", [](const Tensor& a, const Tensor& b, Scalar alpha) { return kael::sub(a, b, alpha); },
         py::arg("other"), py::arg("alpha") = 1);
    both(m, tensor, "sub", [](const Tensor& a, Scalar b, Scalar alpha) { return kael::sub(a, b, alpha); },
         py::arg("other"), py::arg("alpha") = 1);
    both_binary(m, tensor, "mul", [](const Tensor& a, const Tensor& b) { return kael::mul(a, b); },
                [](const Tensor& a, Scalar b) { return kael::mul(a, b); });
    both_binary(m, tensor, "div", [](const Tensor& a, const Tensor& b) { return kael::div(a, b); },
                [](const Tensor& a, Scalar b) { return kael::div(a, b); });
    both_binary(m, tensor, "floor_divide", [](const Tensor& a, const Tensor& b) { return kael::floor_divide(a, b); },
                [](const Tensor& a, Scalar b) { return kael::floor_divide(a, b); });
    both_binary(m, tensor, "remainder", [](const Tensor& a, const Tensor& b) { return kael::remainder(a, b); },
                [](const Tensor& a, Scalar b) { return kael::remainder(a, b); });
    both(m, tensor, "pow", [](const Tensor& a, const Tensor& b) { return kael::pow(a, b); }, py::arg("exponent"));
    both(m, tensor, "pow", [](const Tensor& a, Scalar b) { return kael::pow(a, b); }, py::arg("exponent"));
    both(m, tensor, "maximum", [](const Tensor& a, const Tensor& b) { return kael::maximum(a, b); }, py::arg("other"));
    both(m, tensor, "minimum", [](const Tensor& a, const Tensor& b) { return kael::minimum(a, b); }, py::arg("other"));
    both(m, tensor, "atan2", [](const Tensor& a, const Tensor& b) { return kael::atan2(a, b); }, py::arg("other"));

    both_binary(m, tensor, "eq", [](const Tensor& a, const Tensor& b) { return kael::eq(a, b); },
                [](const Tensor& a, Scalar b) { return kael::eq(a, b); });
    both_binary(m, tensor, "ne", [](const Tensor& a, const Tensor& b) { return kael::ne(a, b); },
                [](const Tensor& a, Scalar b) { return kael::ne(a, b); });
    both_binary(m, tensor, "lt", [](const Tensor& a, const Tensor& b) { return kael::lt(a, b); },
                [](const Tensor& a, Scalar b) { return kael::lt(a, b); });
    both_binary(m, tensor, "le", [](const Tensor& a, const Tensor& b) { return kael::le(a, b); },
                [](const Tensor& a, Scalar b) { return kael::le(a, b); });
    both_binary(m, tensor, "gt", [](const Tensor& a, const Tensor& b) { return kael::gt(a, b); },
                [](const Tensor& a, Scalar b) { return kael::gt(a, b); });
    both_binary(m, tensor, "ge", [](const Tensor& a, const Tensor& b) { return kael::ge(a, b); },
                [](const Tensor& a, Scalar b) { return kael::ge(a, b); });
    both(m, tensor, "logical_and", [](const Tensor& a, const Tensor& b) { return kael::logical_and(a, b); },
         py::arg("other"));
    both(m, tensor, "logical_or", [](const Tensor& a, const Tensor& b) { return kael::logical_or(a, b); },
         py::arg("other"));
    both(m, tensor, "logical_xor", [](const Tensor& a, const Tensor& b) { return kael::logical_xor(a, b); },
         py::arg("other"));
    both(m, tensor, "isclose",
         [](const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
             return kael::isclose(a, b, rtol, atol, equal_nan);
         },
         py::arg("other"), py::arg("rtol") = 1e-5, py::arg("atol") = 1e-8, py::arg("equal_nan") = false);
    both(m, tensor, "allclose",
         [](const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
             return kael::allclose(a, b, rtol, atol, equal_nan);
         },
         py::arg("other"), py::arg("rtol") = 1e-5, py::arg("atol") = 1e-8, py::arg("equal_nan") = false);

    // where(condition, input, other) as PyTorch spells it; the method is input.where(condition, other).
    m.def("where", [](const Tensor& c, const Tensor& a, const Tensor& b) { return kael::where(c, a, b); },
          py::arg("condition"), py::arg("input"), py::arg("other"), Release());
    m.def("where", [](const Tensor& c, const Tensor& a, Scalar b) { return kael::where(c, a, b); },
          py::arg("condition"), py::arg("input"), py::arg("other"), Release());
    m.def("where", [](const Tensor& c, Scalar a, const Tensor& b) { return kael::where(c, a, b); },
          py::arg("condition"), py::arg("input"), py::arg("other"), Release());
    tensor.def("where", [](const Tensor& a, const Tensor& c, const Tensor& b) { return kael::where(c, a, b); },
               py::arg("condition"), py::arg("other"), Release());
    tensor.def("where", [](const Tensor& a, const Tensor& c, Scalar b) { return kael::where(c, a, b); },
               py::arg("condition"), py::arg("other"), Release());

    both(m, tensor, "matmul", [](const Tensor& a, const Tensor& b) { return kael::matmul(a, b); }, py::arg("other"));
    both(m, tensor, "mm", [](const Tensor& a, const Tensor& b) { return kael::mm(a, b); }, py::arg("mat2"));
    both(m, tensor, "bmm", [](const Tensor& a, const Tensor& b) { return kael::bmm(a, b); }, py::arg("mat2"));
    both(m, tensor, "dot", [](const Tensor& a, const Tensor& b) { return kael::dot(a, b); }, py::arg("other"));
    both(m, tensor, "outer", [](const Tensor& a, const Tensor& b) { return kael::outer(a, b); }, py::arg("vec2"));
}

void bind_reductions(py::module_& m, py::class_<PyTensor>& tensor) {
    both(m, tensor, "sum",
         [](const Tensor& t, DimList dim, bool keepdim) { return kael::sum(t, dim.dims, keepdim); },
         py::arg("dim") = py::none(), py::arg("keepdim") = false);
    both(m, tensor, "mean",
         [](const Tensor& t, DimList dim, bool keepdim) { return kael::mean(t, dim.dims, keepdim); },
         py::arg("dim") = py::none(), py::arg("keepdim") = false);
    both(m, tensor, "prod",
         [](const Tensor& t, DimList dim, bool keepdim) { return kael::prod(t, dim.dims, keepdim); },
         py::arg("dim") = py::none(), py::arg("keepdim") = false);
    both(m, tensor, "amax",
         [](const Tensor& t, DimList dim, bool keepdim) { return kael::amax(t, dim.dims, keepdim); },
         py::arg("dim") = py::none(), py::arg("keepdim") = false);
    both(m, tensor, "amin",
         [](const Tensor& t, DimList dim, bool keepdim) { return kael::amin(t, dim.dims, keepdim); },
         py::arg("dim") = py::none(), py::arg("keepdim") = false);
    both(m, tensor, "logsumexp",
         [](const Tensor& t, DimList dim, bool keepdim) { return kael::logsumexp(t, dim.dims, keepdim); },
         py::arg("dim"), py::arg("keepdim") = false);
    both(m, tensor, "var",
         [](const Tensor& t, DimList dim, double correction, bool keepdim) {
             return kael::var(t, dim.dims, correction, keepdim);
         },
         py::arg("dim") = py::none(), py::arg("correction") = 1.0, py::arg("keepdim") = false);
    both(m, tensor, "std",
         [](const Tensor& t, DimList dim, double correction, bool keepdim) {
             return kael::std(t, dim.dims, correction, keepdim);
         },
         py::arg("dim") = py::none(), py::arg("correction") = 1.0, py::arg("keepdim") = false);
    both(m, tensor, "any",
         [](const Tensor& t, DimList dim, bool keepdim) { return kael::any(t, dim.dims, keepdim); },
         py::arg("dim") = py::none(), py::arg("keepdim") = false);
    both(m, tensor, "all",
         [](const Tensor& t, DimList dim, bool keepdim) { return kael::all(t, dim.dims, keepdim); },
         py::arg("dim") = py::none(), py::arg("keepdim") = false);
    both(m, tensor, "cumsum", [](const Tensor& t, std::int64_t dim) { return kael::cumsum(t, dim); }, py::arg("dim"));
    // max() and min(): the extreme of everything, or (values, indices) along a dim.
    for (const bool largest : {true, false}) {
        const char* name = largest ? "max" : "min";
        both(m, tensor, name, [largest](const Tensor& t) { return largest ? kael::max(t) : kael::min(t); });
        // Along a dim: PyTorch's named pair (values, indices), made with the GIL held.
        const auto along = [largest, type = named_pair_type(m, name)](const Tensor& t, std::int64_t dim,
                                                                      bool keepdim) {
            return as_named_pair(type, [&] { return largest ? kael::max(t, dim, keepdim) : kael::min(t, dim, keepdim); });
        };
        tensor.def(name, along, py::arg("dim"), py::arg("keepdim") = false);
        m.def(name, along, py::arg("input"), py::arg("dim"), py::arg("keepdim") = false);
        const char* position = largest ? "argmax" : "argmin";
        both(m, tensor, position,
             [largest](const Tensor& t, std::optional<std::int64_t> dim, bool keepdim) {
                 if (!dim) {
                     return largest ? kael::argmax(t) : kael::argmin(t);
                 }
                 return largest ? kael::argmax(t, *dim, keepdim) : kael::argmin(t, *dim, keepdim);
             },
             py::arg("dim") = py::none(), py::arg("keepdim") = false);
    }
}

void bind_structure(py::module_& m, py::class_<PyTensor>& tensor) {
    both(m, tensor, "softmax", [](const Tensor& t, std::int64_t dim) { return kael::softmax(t, dim); }, py::arg("dim"));
    both(m, tensor, "log_softmax", [](const Tensor& t, std::int64_t dim) { return kael::log_softmax(t, dim); },
         py::arg("dim"));
    both(m, tensor, "index_select",
         [](const Tensor& t, std::int64_t dim, const Tensor& index) { return kael::index_select(t, dim, index); },
         py::arg("dim"), py::arg("index"));
    both(m, tensor, "gather",
         [](const Tensor& t, std::int64_t dim, const Tensor& index) { return kael::gather(t, dim, index); },
         py::arg("dim"), py::arg("index"));
    both(m, tensor, "scatter_add",
         [](const Tensor& t, std::int64_t dim, const Tensor& index, const Tensor& src) {
             return kael::scatter_add(t, dim, index, src);
         },
         py::arg("dim"), py::arg("index"), py::arg("src"));
    both(m, tensor, "masked_fill",
         [](const Tensor& t, const Tensor& mask, Scalar value) { return kael::masked_fill(t, mask, value); },
         py::arg("mask"), py::arg("value"));
    both(m, tensor, "tril", [](const Tensor& t, std::int64_t diagonal) { return kael::tril(t, diagonal); },
         py::arg("diagonal") = 0);
    both(m, tensor, "triu", [](const Tensor& t, std::int64_t diagonal) { return kael::triu(t, diagonal); },
         py::arg("diagonal") = 0);
    both(m, tensor, "split",
         [](const Tensor& t, const std::variant<std::int64_t, std::vector<std::int64_t>>& sizes, std::int64_t dim) {
             return std::visit([&](const auto& s) { return kael::split(t, s, dim); }, sizes);
         },
         py::arg("split_size_or_sections"), py::arg("dim") = 0);
    both(m, tensor, "chunk",
         [](const Tensor& t, std::int64_t chunks, std::int64_t dim) { return kael::chunk(t, chunks, dim); },
         py::arg("chunks"), py::arg("dim") = 0);
    m.def("cat", [](const std::vector<Tensor>& tensors, std::int64_t dim) { return kael::cat(tensors, dim); },
          py::arg("tensors"), py::arg("dim") = 0, Release());
    m.def("stack", [](const std::vector<Tensor>& tensors, std::int64_t dim) { return kael::stack(tensors, dim); },
          py::arg("tensors"), py::arg("dim") = 0, Release());
    m.def("one_hot", [](const Tensor& t, std::int64_t classes) { return kael::one_hot(t, classes); },
          py::arg("input"), py::arg("num_classes") = -1, Release());
    m.def("transpose", [](const Tensor& t, std::int64_t a, std::int64_t b) { return t.transpose(a, b); },
          py::arg("input"), py::arg("dim0"), py::arg("dim1"));
    m.def("reshape", [](const Tensor& t, const Shape& shape) { return t.reshape(shape); }, py::arg("input"),
          py::arg("shape"));
    m.def("flatten", [](const Tensor& t, std::int64_t start, std::int64_t end) { return t.flatten(start, end); },
          py::arg("input"), py::arg("start_dim") = 0, py::arg("end_dim") = -1);
    m.def("unsqueeze", [](const Tensor& t, std::int64_t dim) { return t.unsqueeze(dim); }, py::arg("input"),
          py::arg("dim"));
}

//> stage 12
// Chapter 11: drawing tokens, and the fused attention.
void bind_generation(py::module_& m, py::class_<PyTensor>& tensor) {
    both(m, tensor, "multinomial",
         [](const Tensor& weights, std::int64_t samples, bool replacement) {
             return kael::multinomial(weights, samples, replacement);
         },
         py::arg("num_samples"), py::arg("replacement") = false);
    m.def("sample_next",
          [](const Tensor& logits, double temperature, std::optional<std::int64_t> top_k, double top_p) {
              return nn::sample_next(logits, {temperature, top_k, top_p});
          },
          py::arg("logits"), py::arg("temperature") = 1.0, py::arg("top_k") = py::none(), py::arg("top_p") = 1.0,
          Release());
    m.def("scaled_dot_product_attention",
          [](const Tensor& q, const Tensor& k, const Tensor& v, bool is_causal, std::optional<double> scale) {
              return kael::scaled_dot_product_attention(q, k, v, is_causal, scale);
          },
          py::arg("query"), py::arg("key"), py::arg("value"), py::arg("is_causal") = false,
          py::arg("scale") = py::none(), Release());
}
//< stage 12

void bind_in_place(py::class_<PyTensor>& tensor) {
    // Each returns self: the same impl, so the identity cache hands back the same object.
    tensor.def("add_", [](Tensor& t, const Tensor& o, Scalar alpha) { return t.add_(o, alpha); }, py::arg("other"),
               py::arg("alpha") = 1, Release())
        .def("add_", [](Tensor& t, Scalar o, Scalar alpha) { return t.add_(o, alpha); }, py::arg("other"),
             py::arg("alpha") = 1, Release())
        .def("sub_", [](Tensor& t, const Tensor& o, Scalar alpha) { return t.sub_(o, alpha); }, py::arg("other"),
             py::arg("alpha") = 1, Release())
        .def("sub_", [](Tensor& t, Scalar o, Scalar alpha) { return t.sub_(o, alpha); }, py::arg("other"),
             py::arg("alpha") = 1, Release())
        .def("mul_", [](Tensor& t, const Tensor& o) { return t.mul_(o); }, py::arg("other"), Release())
        .def("mul_", [](Tensor& t, Scalar o) { return t.mul_(o); }, py::arg("other"), Release())
        .def("div_", [](Tensor& t, const Tensor& o) { return t.div_(o); }, py::arg("other"), Release())
        .def("div_", [](Tensor& t, Scalar o) { return t.div_(o); }, py::arg("other"), Release())
        .def("fill_", [](Tensor& t, Scalar value) { return t.fill_(value); }, py::arg("value"), Release())
        .def("zero_", [](Tensor& t) { return t.zero_(); }, Release())
        .def("copy_", [](Tensor& t, const Tensor& src) { return t.copy_(src); }, py::arg("src"), Release())
        .def("neg_", [](Tensor& t) { return t.neg_(); }, Release())
        .def("clamp_",
             [](Tensor& t, std::optional<Scalar> min, std::optional<Scalar> max) { return t.clamp_(min, max); },
             py::arg("min") = py::none(), py::arg("max") = py::none(), Release())
        .def("masked_fill_", [](Tensor& t, const Tensor& mask, Scalar value) { return t.masked_fill_(mask, value); },
             py::arg("mask"), py::arg("value"), Release());
}

}  // namespace

void bind_functions(py::module_& m, py::class_<PyTensor>& tensor) {
    bind_elementwise(m, tensor);
    bind_reductions(m, tensor);
    bind_structure(m, tensor);
    bind_in_place(tensor);
//> stage 12
    bind_generation(m, tensor);
//< stage 12
}

}  // namespace kael::python
