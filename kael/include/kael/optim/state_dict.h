#pragma once
/// \file
/// \brief The flattened state dicts of optimizers and schedules: key names and a checked reader.
///
/// PyTorch's `optimizer.state_dict()` is a nested dict,
///
///     {"state": {0: {"step": ..., "exp_avg": ...}, ...},
///      "param_groups": [{"lr": ..., "betas": ..., ..., "params": [0, 1, ...]}]}
///
/// and a schedule's is a flat dict of its attributes ("last_epoch", "base_lrs", ...). kael
/// keeps the same keys and joins the levels with dots, "state.0.exp_avg" and
/// "param_groups.0.lr", so that the whole state is one nn::StateDict: the type a model's
/// checkpoint already has, which the safetensors writer stores as it is.
///
/// Every value is a tensor. Buffers are tensors anyway; a hyperparameter or a counter is a
/// 0-d tensor (float64 for a real number, int64 for a count, bool for a flag) and a list is
/// a 1-d one ("betas", "params", "base_lrs"). The alternative, the file's string metadata,
/// would store a learning rate as decimal text, which has to be printed with 17 digits and
/// parsed back to keep every bit, and would exist only in files, not in memory. A float64
/// tensor keeps the double exactly, carries its own type, and goes through the same checks
/// on load as every buffer.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "kael/nn/state_dict.h"
#include "kael/tensor.h"

namespace kael::optim {

/// "state.<id>.<name>": an entry of the state of the parameter numbered `id`.
[[nodiscard]] std::string state_key(std::int64_t id, std::string_view name);
/// "param_groups.0.<name>": a hyperparameter of the (single) parameter group.
[[nodiscard]] std::string group_key(std::string_view name);

/// Reads a flattened state dict on behalf of one optimizer or schedule, checking the type
/// and shape of every entry it hands out and remembering which keys it has read, so that
/// finish() can refuse whatever is left over. Every refusal is a ValueError whose message
/// starts with "<owner>.load_state_dict:" and names the key.
///
/// Loading goes in two phases: read and check everything through a reader into local
/// variables, call finish(), and only then overwrite the object's state. A refused state
/// dict then changes nothing.
class StateDictReader {
public:
    /// `owner` is the name of the loading class, as PyTorch names it ("Adam", "StepLR").
    StateDictReader(const nn::StateDict& state, std::string owner);

    /// The name used in messages.
    [[nodiscard]] const std::string& owner() const noexcept { return owner_; }
    /// The tensor under `key`, or nullptr; either way the key counts as read.
    [[nodiscard]] const Tensor* find(const std::string& key);
    /// The tensor under `key`; ValueError when there is none.
    [[nodiscard]] const Tensor& at(const std::string& key);
    /// The value of a 0-d floating point tensor.
    [[nodiscard]] double number(const std::string& key);
    /// The value of a 0-d tensor holding a whole number: int64, or floating point with an
    /// integral value (PyTorch 1.13 counts Adam's steps in a float32 tensor).
    [[nodiscard]] std::int64_t integer(const std::string& key);
    /// The value of a 0-d bool tensor.
    [[nodiscard]] bool flag(const std::string& key);
    /// The elements of a 1-d floating point tensor of `size` elements.
    [[nodiscard]] std::vector<double> numbers(const std::string& key, std::int64_t size);
    /// The elements of a 1-d int64 tensor.
    [[nodiscard]] std::vector<std::int64_t> integers(const std::string& key);
    /// A copy of the floating point tensor under `key`, converted to the dtype and device of
    /// `parameter`, whose shape it must have (PyTorch casts an optimizer's buffers to their
    /// parameter's dtype on load); empty when there is no such key.
    [[nodiscard]] std::optional<Tensor> buffer(const std::string& key, const Tensor& parameter);
    /// The entries whose keys start with `prefix`, under the rest of their keys, all
    /// counted as read: the state of one part ("_schedulers.1.") for that part to read.
    [[nodiscard]] nn::StateDict section(const std::string& prefix);

    /// Checks that the entry under `key` has the dtype, shape and elements of `expected`:
    /// a setting given to the constructor, which a state dict must agree with.
    void expect_equal(const std::string& key, const Tensor& expected);
    /// ValueError listing every key that nothing has read.
    void finish() const;

private:
    const nn::StateDict& state_;
    std::string owner_;
    std::unordered_set<std::string> read_;
};

}  // namespace kael::optim
