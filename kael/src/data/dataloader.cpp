// DataLoader: batch counts, the order of each epoch, and the iterator that serves it.
#include "kael/data/dataloader.h"

#include <algorithm>
#include <utility>

#include "kael/error.h"
#include "kael/random.h"

namespace kael::data {

DataLoader::DataLoader(TensorDataset dataset, DataLoaderOptions options)
    : dataset_(std::move(dataset)), options_(options) {
    KAEL_CHECK_VALUE(options_.batch_size > 0, "batch_size should be a positive integer value, but got batch_size="
                                                  << options_.batch_size);
}

std::int64_t DataLoader::size() const noexcept {
    const std::int64_t full = dataset_.size() / options_.batch_size;
    const bool partial = dataset_.size() % options_.batch_size != 0;
    return partial && !options_.drop_last ? full + 1 : full;
}

DataLoader::Iterator DataLoader::begin() const {
    std::optional<Tensor> order;
    if (options_.shuffle) {
        order = randperm(dataset_.size());
    }
    // With drop_last the epoch ends before the rows that would make a short batch.
    const std::int64_t rows =
        options_.drop_last ? dataset_.size() / options_.batch_size * options_.batch_size : dataset_.size();
    return Iterator(dataset_, std::move(order), options_.batch_size, rows);
}

DataLoader::Iterator::Iterator(TensorDataset dataset, std::optional<Tensor> order, std::int64_t batch_size,
                               std::int64_t end)
    : dataset_(std::move(dataset)), order_(std::move(order)), batch_size_(batch_size), end_(end) {
    if (start_ != end_) {
        load();
    }
}

DataLoader::Iterator& DataLoader::Iterator::operator++() {
    // min() rather than a plain +=: a batch size near the int64 limit must not overflow.
    start_ += std::min(batch_size_, end_ - start_);
    if (start_ != end_) {
        load();
    } else {
        batch_.clear();  // an iterator kept past the end need not hold the last batch
    }
    return *this;
}

DataLoader::Iterator DataLoader::Iterator::operator++(int) {
    Iterator before = *this;
    ++*this;
    return before;
}

// Consecutive rows are already laid out as a batch, so they are served as views; a
// shuffled batch gathers scattered rows and has to copy them.
void DataLoader::Iterator::load() {
    const std::int64_t length = std::min(batch_size_, end_ - start_);
    batch_ = order_ ? dataset_.get_batch(order_->narrow(0, start_, length)) : dataset_.narrow(start_, length);
}

}  // namespace kael::data
