#pragma once
/// \file
/// \brief TensorDataset: rows of several tensors that belong together (chapter 07).

#include <cstdint>
#include <vector>

#include "kael/tensor.h"

namespace kael::data {

/// Tensors that share their first dimension, read row by row, as
/// `torch.utils.data.TensorDataset`: row i of the images goes with row i of the labels.
///
/// The dataset keeps handles to the tensors, not copies (copying a dataset is cheap).
/// get() and narrow() return views that share the tensors' storage; get_batch() copies.
class TensorDataset {
public:
    /// Takes the tensors. ValueError for an empty list, a 0-d tensor (it has no rows), or
    /// tensors whose sizes along dimension 0 differ (the message names both sizes).
    explicit TensorDataset(std::vector<Tensor> tensors);

    /// The number of rows: the size of dimension 0 of every tensor.
    [[nodiscard]] std::int64_t size() const noexcept { return size_; }

    /// Row `index` of each tensor, `tensor[index]`, in the order the tensors were given.
    /// Negative indices count from the end, as in Python; IndexError outside [-size, size).
    [[nodiscard]] std::vector<Tensor> get(std::int64_t index) const;

    /// The rows at `indices` (1-d or 0-d I64) of each tensor, through index_select along
    /// dimension 0: new contiguous tensors. Errors are index_select's (IndexError for an
    /// index outside [0, size); negative indices are not wrapped, as in PyTorch).
    [[nodiscard]] std::vector<Tensor> get_batch(const Tensor& indices) const;

    /// `length` consecutive rows from `start` of each tensor, as views without copying.
    /// IndexError or ValueError as Tensor::narrow reports them.
    [[nodiscard]] std::vector<Tensor> narrow(std::int64_t start, std::int64_t length) const;

    /// The tensors, in the order given.
    [[nodiscard]] const std::vector<Tensor>& tensors() const noexcept { return tensors_; }

private:
    std::vector<Tensor> tensors_;
    std::int64_t size_;
};

}  // namespace kael::data
