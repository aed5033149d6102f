// The flattened state dicts of optimizers and schedules: key names, and a reader that
// checks each entry and refuses the ones nobody read.
#include "kael/optim/state_dict.h"

#include <cmath>
#include <cstring>
#include <iomanip>
#include <limits>
#include <sstream>

#include "kael/error.h"

namespace kael::optim {

std::string state_key(std::int64_t id, std::string_view name) {
    std::string key = "state.";
    key += std::to_string(id);
    key += '.';
    key += name;
    return key;
}

std::string group_key(std::string_view name) {
    std::string key = "param_groups.0.";
    key += name;
    return key;
}

namespace {

// "float64 of shape [2]", for the messages of refused entries.
std::string kind_of(const Tensor& t) {
    std::ostringstream os;
    os << t.dtype() << " of shape " << to_string(t.shape());
    return os.str();
}

// The elements of a small tensor with every digit a double has, so that two settings that
// differ in the last bit do not print alike.
std::string elements_of(const Tensor& t) {
    const Tensor values = t.to(DType::F64).contiguous().cpu();
    const double* data = values.data_ptr<double>();
    std::ostringstream os;
    os << std::setprecision(std::numeric_limits<double>::max_digits10);
    if (values.dim() == 0) {
        os << data[0];
        return os.str();
    }
    os << '[';
    for (std::int64_t i = 0; i < values.numel(); ++i) {
        os << (i == 0 ? "" : ", ") << data[i];
    }
    os << ']';
    return os.str();
}

}  // namespace

StateDictReader::StateDictReader(const nn::StateDict& state, std::string owner)
    : state_(state), owner_(std::move(owner)) {}

const Tensor* StateDictReader::find(const std::string& key) {
    read_.insert(key);
    return state_.find(key);
}

const Tensor& StateDictReader::at(const std::string& key) {
    const Tensor* t = find(key);
    KAEL_CHECK_VALUE(t != nullptr, owner_ << ".load_state_dict: the state dict has no '" << key << "'");
    return *t;
}

double StateDictReader::number(const std::string& key) {
    // Only float64: a float32 hyperparameter would have lost bits of the double it stood for.
    const Tensor& t = at(key);
    KAEL_CHECK_VALUE(t.dim() == 0 && t.dtype() == DType::F64,
                     owner_ << ".load_state_dict: '" << key << "' must be a 0-d float64 tensor, it is " << kind_of(t));
    return t.item<double>();
}

std::int64_t StateDictReader::integer(const std::string& key) {
    const Tensor& t = at(key);
    KAEL_CHECK_VALUE(t.dim() == 0 && t.dtype() != DType::Bool,
                     owner_ << ".load_state_dict: '" << key << "' must be a 0-d tensor holding a whole number, it is "
                            << kind_of(t));
    if (t.dtype() == DType::I64) {
        return t.item<std::int64_t>();
    }
    const double value = t.item();
    // 2^53: beyond it a double no longer tells neighbouring integers apart.
    KAEL_CHECK_VALUE(value == std::floor(value) && std::abs(value) <= 9007199254740992.0,
                     owner_ << ".load_state_dict: '" << key << "' must hold a whole number, it holds "
                            << elements_of(t));
    return static_cast<std::int64_t>(value);
}

bool StateDictReader::flag(const std::string& key) {
    const Tensor& t = at(key);
    KAEL_CHECK_VALUE(t.dim() == 0 && t.dtype() == DType::Bool,
                     owner_ << ".load_state_dict: '" << key << "' must be a 0-d bool tensor, it is " << kind_of(t));
    return t.item<std::uint8_t>() != 0;
}

std::vector<double> StateDictReader::numbers(const std::string& key, std::int64_t size) {
    const Tensor& t = at(key);
    KAEL_CHECK_VALUE(t.dim() == 1 && t.numel() == size && t.dtype() == DType::F64,
                     owner_ << ".load_state_dict: '" << key << "' must be a float64 tensor of shape [" << size
                            << "], it is " << kind_of(t));
    const Tensor c = t.contiguous().cpu();
    return {c.data_ptr<double>(), c.data_ptr<double>() + size};
}

std::vector<std::int64_t> StateDictReader::integers(const std::string& key) {
    const Tensor& t = at(key);
    KAEL_CHECK_VALUE(t.dim() == 1 && t.dtype() == DType::I64,
                     owner_ << ".load_state_dict: '" << key << "' must be a 1-d int64 tensor, it is " << kind_of(t));
    const Tensor c = t.contiguous().cpu();
    return {c.data_ptr<std::int64_t>(), c.data_ptr<std::int64_t>() + c.numel()};
}

std::optional<Tensor> StateDictReader::buffer(const std::string& key, const Tensor& parameter) {
    const Tensor* t = find(key);
    if (t == nullptr) {
        return std::nullopt;
    }
    KAEL_CHECK_VALUE(is_floating_point(t->dtype()) && t->shape() == parameter.shape(),
                     owner_ << ".load_state_dict: '" << key << "' is " << kind_of(*t)
                            << ", the parameter it belongs to is " << kind_of(parameter));
    // A copy, so that the optimizer does not share its buffers with the caller's dict.
    return t->to(parameter.dtype()).to(parameter.device()).clone();
}

nn::StateDict StateDictReader::section(const std::string& prefix) {
    nn::StateDict part;
    for (const auto& [key, tensor] : state_) {
        if (key.starts_with(prefix)) {
            read_.insert(key);
            part.insert(key.substr(prefix.size()), tensor);
        }
    }
    return part;
}

void StateDictReader::expect_equal(const std::string& key, const Tensor& expected) {
    const Tensor& t = at(key);
    KAEL_CHECK_VALUE(t.dtype() == expected.dtype() && t.shape() == expected.shape(),
                     owner_ << ".load_state_dict: '" << key << "' must be " << kind_of(expected) << ", it is "
                            << kind_of(t));
    const Tensor got = t.contiguous().cpu();
    const Tensor want = expected.contiguous().cpu();
    // Bit for bit: a setting that differs in the last digit is another setting.
    const bool same = std::memcmp(got.data_ptr_raw(), want.data_ptr_raw(), static_cast<std::size_t>(got.nbytes())) == 0;
    KAEL_CHECK_VALUE(same, owner_ << ".load_state_dict: the state was saved with " << key << " = " << elements_of(t)
                                  << ", this one has " << key << " = " << elements_of(expected));
}

void StateDictReader::finish() const {
    std::ostringstream unexpected;
    bool any = false;
    for (const auto& [key, tensor] : state_) {
        if (!read_.contains(key)) {
            unexpected << (any ? ", " : "") << '"' << key << '"';
            any = true;
        }
    }
    KAEL_CHECK_VALUE(!any, owner_ << ".load_state_dict: unexpected key(s) in state_dict: " << unexpected.str());
}

}  // namespace kael::optim
