#pragma once
/// \file
/// \brief DataLoader: a dataset served in batches, one epoch per loop (chapter 07).

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <vector>

#include "kael/data/dataset.h"
#include "kael/tensor.h"

namespace kael::data {

/// How a DataLoader cuts its dataset into batches, as the arguments of
/// `torch.utils.data.DataLoader` of the same names.
struct DataLoaderOptions {
    std::int64_t batch_size = 1;  ///< rows per batch; the last batch may have fewer
    bool shuffle = false;         ///< visit the rows in a new random order every epoch
    bool drop_last = false;       ///< skip the last batch when it has fewer than batch_size rows
};

/// Serves a TensorDataset in batches: `for (const std::vector<Tensor>& batch : loader)`
/// runs one epoch, and batch[k] holds rows of the dataset's tensor k, the same rows for
/// every k.
///
/// Each begin() starts a new epoch. With shuffle, the epoch's order is kael::randperm of
/// the dataset size, drawn from the global generator when the epoch starts, so
/// kael::manual_seed makes the orders reproducible; the batches are copies (index_select).
/// Without shuffle the batches are consecutive rows, served as views that share the
/// dataset's storage. The loader keeps its own handle to the dataset, and each iterator
/// keeps one too, so neither can outlive the tensors it reads.
class DataLoader {
public:
    /// Compares equal to an Iterator that has passed the last batch of its epoch.
    struct Sentinel {};

    /// Walks one epoch. Copies of an iterator share the epoch's order and advance
    /// independently.
    class Iterator {
    public:
        using iterator_category = std::input_iterator_tag;  ///< a single pass over an epoch
        using iterator_concept = std::input_iterator_tag;   ///< the same, for C++20 ranges
        using value_type = std::vector<Tensor>;             ///< one batch: a tensor per dataset tensor
        using difference_type = std::ptrdiff_t;             ///< required of every iterator
        using reference = const std::vector<Tensor>&;       ///< what operator* returns
        using pointer = const std::vector<Tensor>*;         ///< what operator-> returns

        /// The current batch.
        [[nodiscard]] reference operator*() const noexcept { return batch_; }
        /// The current batch's members: `it->size()`.
        [[nodiscard]] pointer operator->() const noexcept { return &batch_; }
        /// Moves to the next batch.
        Iterator& operator++();
        /// Moves to the next batch and returns the iterator as it was.
        Iterator operator++(int);
        /// True once every batch of the epoch has been served.
        friend bool operator==(const Iterator& it, Sentinel /*end*/) noexcept { return it.start_ == it.end_; }

    private:
        friend class DataLoader;
        Iterator(TensorDataset dataset, std::optional<Tensor> order, std::int64_t batch_size, std::int64_t end);
        void load();

        TensorDataset dataset_;
        std::optional<Tensor> order_;  // the epoch's permutation; empty without shuffle
        std::int64_t batch_size_;
        std::int64_t end_;        // rows this epoch serves: fewer than the dataset's with drop_last
        std::int64_t start_ = 0;  // the first row (or position in order_) of the current batch
        std::vector<Tensor> batch_;
    };

    /// Takes the dataset (a cheap copy of its handles) and the options. ValueError for a
    /// batch size below 1.
    explicit DataLoader(TensorDataset dataset, DataLoaderOptions options = {});

    /// The number of batches in one epoch: the dataset size divided by the batch size,
    /// rounded up, or rounded down with drop_last.
    [[nodiscard]] std::int64_t size() const noexcept;
    /// Starts a new epoch; with shuffle, draws its order from the global generator.
    [[nodiscard]] Iterator begin() const;
    /// The end of every epoch.
    [[nodiscard]] Sentinel end() const noexcept { return {}; }

    /// The dataset the batches come from.
    [[nodiscard]] const TensorDataset& dataset() const noexcept { return dataset_; }
    /// The options given to the constructor.
    [[nodiscard]] const DataLoaderOptions& options() const noexcept { return options_; }

private:
    TensorDataset dataset_;
    DataLoaderOptions options_;
};

}  // namespace kael::data
