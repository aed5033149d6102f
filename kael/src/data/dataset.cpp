// TensorDataset: the size checks that keep rows of several tensors paired, and the three
// ways of reading rows (one, a batch by index, a consecutive range).
#include "kael/data/dataset.h"

#include <utility>

#include "kael/error.h"
#include "kael/ops/indexing.h"
#include "kael/shape.h"

namespace kael::data {
namespace {

// The number of rows every tensor has. Tensors that disagree would pair an image with
// another image's label, so they are refused here rather than discovered at the last batch.
std::int64_t common_size(const std::vector<Tensor>& tensors) {
    KAEL_CHECK_VALUE(!tensors.empty(), "TensorDataset needs at least one tensor");
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        KAEL_CHECK_VALUE(tensors[i].dim() > 0, "TensorDataset: tensor " << i
                                                   << " is 0-d and has no rows to index");
        KAEL_CHECK_VALUE(tensors[i].size(0) == tensors[0].size(0),
                         "TensorDataset: size mismatch between tensors: tensor 0 has "
                             << tensors[0].size(0) << " rows (size of dimension 0), tensor " << i << " has "
                             << tensors[i].size(0));
    }
    return tensors[0].size(0);
}

}  // namespace

TensorDataset::TensorDataset(std::vector<Tensor> tensors)
    : tensors_(std::move(tensors)), size_(common_size(tensors_)) {}

std::vector<Tensor> TensorDataset::get(std::int64_t index) const {
    // Checked here rather than left to select(), so the message speaks of the dataset.
    KAEL_CHECK_INDEX(index >= -size_ && index < size_,
                     "TensorDataset: index " << index << " is out of range for a dataset of size " << size_);
    std::vector<Tensor> row;
    row.reserve(tensors_.size());
    for (const Tensor& t : tensors_) {
        row.push_back(t[index]);
    }
    return row;
}

std::vector<Tensor> TensorDataset::get_batch(const Tensor& indices) const {
    std::vector<Tensor> batch;
    batch.reserve(tensors_.size());
    for (const Tensor& t : tensors_) {
        batch.push_back(index_select(t, 0, indices));
    }
    return batch;
}

std::vector<Tensor> TensorDataset::narrow(std::int64_t start, std::int64_t length) const {
    std::vector<Tensor> rows;
    rows.reserve(tensors_.size());
    for (const Tensor& t : tensors_) {
        rows.push_back(t.narrow(0, start, length));
    }
    return rows;
}

}  // namespace kael::data
