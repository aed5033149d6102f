// TensorDataset and DataLoader: rows paired across tensors, batch counts at and one past a
// multiple of the batch size, the order of shuffled epochs and its seed, and iterators and
// batches that stay valid after the loader and the caller's tensors are gone.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <numeric>
#include <string>
#include <vector>

#include "helpers.h"
#include "kael/data/dataloader.h"
#include "kael/data/dataset.h"
#include "kael/factory.h"
#include "kael/ops.h"
#include "kael/random.h"

namespace {

using kael::DType;
using kael::Shape;
using kael::Tensor;
using kael::data::DataLoader;
using kael::data::DataLoaderOptions;
using kael::data::TensorDataset;
using kael::testing::message_of;
using kael::testing::values;

using I = std::int64_t;

static_assert(std::input_iterator<DataLoader::Iterator>);
static_assert(std::sentinel_for<DataLoader::Sentinel, DataLoader::Iterator>);

// `rows` rows of three features [10 i, 10 i + 1, 10 i + 2] (F32) and the labels i (I64):
// every feature row names the label it belongs to.
TensorDataset numbered(I rows) {
    const Tensor labels = kael::arange(0, static_cast<double>(rows), 1, DType::I64);
    const Tensor features = labels.unsqueeze(1).mul(10).add(kael::arange(3, DType::I64)).to(DType::F32);
    return TensorDataset({features, labels});
}

// The labels of one epoch, batch after batch.
std::vector<I> epoch_labels(const DataLoader& loader) {
    std::vector<I> seen;
    for (const std::vector<Tensor>& batch : loader) {
        const std::vector<I> labels = values<I>(batch[1]);
        seen.insert(seen.end(), labels.begin(), labels.end());
    }
    return seen;
}

// The size of every batch of one epoch.
std::vector<I> batch_sizes(const DataLoader& loader) {
    std::vector<I> sizes;
    for (const std::vector<Tensor>& batch : loader) {
        sizes.push_back(batch[0].size(0));
    }
    return sizes;
}

std::vector<I> iota(I n) {
    std::vector<I> v(static_cast<std::size_t>(n));
    std::iota(v.begin(), v.end(), I{0});
    return v;
}

// ---- TensorDataset --------------------------------------------------------------------------

TEST(TensorDataset, RowsOfEveryTensorInOrder) {
    const TensorDataset dataset = numbered(6);
    EXPECT_EQ(dataset.size(), 6);
    ASSERT_EQ(dataset.tensors().size(), 2U);
    const std::vector<Tensor> row = dataset.get(2);
    ASSERT_EQ(row.size(), 2U);
    EXPECT_EQ(values<float>(row[0]), (std::vector<float>{20, 21, 22}));
    EXPECT_EQ(row[1].shape(), Shape{});  // t[i] of a 1-d tensor is 0-d, as in PyTorch
    EXPECT_EQ(row[1].item<I>(), 2);
    EXPECT_TRUE(row[0].shares_storage(dataset.tensors()[0]));  // a view, like tensor[index]
}

TEST(TensorDataset, NegativeIndicesCountFromTheEnd) {
    const TensorDataset dataset = numbered(6);
    EXPECT_EQ(dataset.get(-1)[1].item<I>(), 5);
    EXPECT_EQ(dataset.get(-6)[1].item<I>(), 0);  // at the limit
    EXPECT_EQ(dataset.get(5)[1].item<I>(), 5);
}

TEST(TensorDataset, IndexOutOfRangeIsRefused) {
    const TensorDataset dataset = numbered(6);
    EXPECT_THROW((void)dataset.get(6), kael::IndexError);  // one past the end
    EXPECT_THROW((void)dataset.get(-7), kael::IndexError);
    EXPECT_NE(message_of([&] { (void)dataset.get(6); })
                  .find("TensorDataset: index 6 is out of range for a dataset of size 6"),
              std::string::npos);
}

TEST(TensorDataset, TensorsOfDifferentLengthsAreRefused) {
    const std::string message =
        message_of([] { (void)TensorDataset({kael::zeros({6, 2}), kael::zeros({5})}); });
    EXPECT_NE(message.find("tensor 0 has 6 rows"), std::string::npos) << message;
    EXPECT_NE(message.find("tensor 1 has 5"), std::string::npos) << message;
    EXPECT_THROW((void)TensorDataset({kael::zeros({6}), kael::zeros({6}), kael::zeros({7, 1})}), kael::ValueError);
}

TEST(TensorDataset, EmptyListAndZeroDimTensorsAreRefused) {
    EXPECT_THROW((void)TensorDataset({}), kael::ValueError);
    EXPECT_NE(message_of([] { (void)TensorDataset({}); }).find("at least one tensor"), std::string::npos);
    EXPECT_THROW((void)TensorDataset({kael::scalar(1.0)}), kael::ValueError);
    EXPECT_NE(message_of([] { (void)TensorDataset({kael::zeros({1}), kael::scalar(1.0)}); }).find("tensor 1 is 0-d"),
              std::string::npos);
    EXPECT_EQ(TensorDataset({kael::zeros({0, 3})}).size(), 0);  // no rows is fine
}

TEST(TensorDataset, GetBatchCopiesTheRowsInIndexOrder) {
    const TensorDataset dataset = numbered(6);
    const std::vector<Tensor> batch = dataset.get_batch(kael::from_vector({I{4}, I{0}, I{4}}));
    EXPECT_EQ(values<I>(batch[1]), (std::vector<I>{4, 0, 4}));
    EXPECT_EQ(values<float>(batch[0]), (std::vector<float>{40, 41, 42, 0, 1, 2, 40, 41, 42}));
    EXPECT_FALSE(batch[0].shares_storage(dataset.tensors()[0]));
    EXPECT_THROW((void)dataset.get_batch(kael::from_vector({I{6}})), kael::IndexError);
    EXPECT_THROW((void)dataset.get_batch(kael::from_vector({1.0})), kael::TypeError);
}

TEST(TensorDataset, NarrowServesConsecutiveRowsAsViews) {
    const TensorDataset dataset = numbered(6);
    const std::vector<Tensor> rows = dataset.narrow(4, 2);
    EXPECT_EQ(values<I>(rows[1]), (std::vector<I>{4, 5}));
    EXPECT_TRUE(rows[0].shares_storage(dataset.tensors()[0]));
    EXPECT_THROW((void)dataset.narrow(5, 2), kael::IndexError);
}

// ---- DataLoader: batch counts ---------------------------------------------------------------

TEST(DataLoader, BatchCountsAtAndOnePastAMultiple) {
    struct Case {
        I rows;
        bool drop_last;
        I batches;
        std::vector<I> sizes;
    };
    const std::vector<Case> cases{
        {10, false, 2, {5, 5}},  {10, true, 2, {5, 5}},     // exactly divisible
        {11, false, 3, {5, 5, 1}}, {11, true, 2, {5, 5}},   // one past
        {9, false, 2, {5, 4}},   {9, true, 1, {5}},         // one short
        {0, false, 0, {}},       {0, true, 0, {}},          // no rows at all
    };
    for (const Case& c : cases) {
        const DataLoader loader(numbered(c.rows), {.batch_size = 5, .drop_last = c.drop_last});
        EXPECT_EQ(loader.size(), c.batches) << c.rows << " rows, drop_last " << c.drop_last;
        EXPECT_EQ(batch_sizes(loader), c.sizes) << c.rows << " rows, drop_last " << c.drop_last;
    }
}

TEST(DataLoader, BatchSizeBelowOneIsRefused) {
    for (const I batch_size : {I{0}, I{-1}}) {
        EXPECT_THROW((void)DataLoader(numbered(4), {.batch_size = batch_size}), kael::ValueError);
        EXPECT_NE(message_of([&] { (void)DataLoader(numbered(4), {.batch_size = batch_size}); })
                      .find("batch_size should be a positive integer value, but got batch_size=" +
                            std::to_string(batch_size)),
                  std::string::npos);
    }
    EXPECT_EQ(DataLoader(numbered(4), {.batch_size = 1}).size(), 4);  // the smallest valid size
}

TEST(DataLoader, BatchLargerThanTheDataset) {
    const DataLoader loader(numbered(10), {.batch_size = 100});
    EXPECT_EQ(loader.size(), 1);
    EXPECT_EQ(epoch_labels(loader), iota(10));
    const DataLoader dropping(numbered(10), {.batch_size = 100, .drop_last = true});
    EXPECT_EQ(dropping.size(), 0);
    EXPECT_TRUE(dropping.begin() == dropping.end());
    // A batch size near the int64 limit must not overflow when the iterator advances.
    EXPECT_EQ(batch_sizes(DataLoader(numbered(3), {.batch_size = INT64_MAX})), (std::vector<I>{3}));
}

// ---- DataLoader: order ----------------------------------------------------------------------

TEST(DataLoader, UnshuffledBatchesAreConsecutiveViews) {
    const DataLoader loader(numbered(11), {.batch_size = 5});
    std::vector<std::vector<I>> batches;
    for (const std::vector<Tensor>& batch : loader) {
        batches.push_back(values<I>(batch[1]));
        EXPECT_TRUE(batch[0].shares_storage(loader.dataset().tensors()[0]));  // no copy
    }
    EXPECT_EQ(batches, (std::vector<std::vector<I>>{{0, 1, 2, 3, 4}, {5, 6, 7, 8, 9}, {10}}));
    EXPECT_EQ(epoch_labels(loader), iota(11));  // every epoch the same
}

TEST(DataLoader, ShuffledEpochSeesEveryRowExactlyOnce) {
    kael::manual_seed(3);
    const DataLoader loader(numbered(23), {.batch_size = 4, .shuffle = true});
    EXPECT_EQ(batch_sizes(loader), (std::vector<I>{4, 4, 4, 4, 4, 3}));
    std::vector<I> seen = epoch_labels(loader);
    EXPECT_NE(seen, iota(23));  // shuffled (23! orders; the identity is no real risk)
    std::sort(seen.begin(), seen.end());
    EXPECT_EQ(seen, iota(23));
}

TEST(DataLoader, ShuffledDropLastDropsOnlyTheShortBatch) {
    kael::manual_seed(5);
    const DataLoader loader(numbered(11), {.batch_size = 5, .shuffle = true, .drop_last = true});
    std::vector<I> seen = epoch_labels(loader);
    ASSERT_EQ(seen.size(), 10U);
    std::sort(seen.begin(), seen.end());
    EXPECT_EQ(std::adjacent_find(seen.begin(), seen.end()), seen.end());  // ten distinct rows
}

TEST(DataLoader, EachEpochDrawsANewOrder) {
    kael::manual_seed(11);
    const DataLoader loader(numbered(20), {.batch_size = 6, .shuffle = true});
    EXPECT_NE(epoch_labels(loader), epoch_labels(loader));
}

TEST(DataLoader, SameSeedGivesTheSameOrder) {
    const DataLoader loader(numbered(20), {.batch_size = 6, .shuffle = true});
    kael::manual_seed(2024);
    const std::vector<I> first = epoch_labels(loader);
    const std::vector<I> second = epoch_labels(loader);
    kael::manual_seed(2024);
    EXPECT_EQ(epoch_labels(loader), first);
    EXPECT_EQ(epoch_labels(loader), second);
}

TEST(DataLoader, BatchesPairRowsAcrossTensors) {
    kael::manual_seed(7);
    const Tensor extra = kael::arange(0, 13, 1, DType::F64).mul(-1);  // a third tensor: -i
    const TensorDataset base = numbered(13);
    const TensorDataset dataset({base.tensors()[0], base.tensors()[1], extra});
    for (const bool shuffle : {false, true}) {
        for (const std::vector<Tensor>& batch : DataLoader(dataset, {.batch_size = 4, .shuffle = shuffle})) {
            ASSERT_EQ(batch.size(), 3U);
            const std::vector<I> labels = values<I>(batch[1]);
            const std::vector<float> features = values<float>(batch[0]);
            const std::vector<double> negated = values<double>(batch[2]);
            ASSERT_EQ(features.size(), 3 * labels.size());
            for (std::size_t i = 0; i < labels.size(); ++i) {
                EXPECT_EQ(features[3 * i], static_cast<float>(10 * labels[i])) << "shuffle " << shuffle;
                EXPECT_EQ(features[3 * i + 2], static_cast<float>(10 * labels[i] + 2)) << "shuffle " << shuffle;
                EXPECT_EQ(negated[i], -static_cast<double>(labels[i])) << "shuffle " << shuffle;
            }
        }
    }
}

// ---- DataLoader: iterators and lifetimes ------------------------------------------------------

TEST(DataLoader, CopiedIteratorsAdvanceIndependently) {
    const DataLoader loader(numbered(6), {.batch_size = 2});
    DataLoader::Iterator it = loader.begin();
    const DataLoader::Iterator copy = it++;
    EXPECT_EQ((*copy)[1].at<I>({0}), 0);
    EXPECT_EQ(it->at(1).at<I>({0}), 2);
    ++it;
    EXPECT_EQ((*it)[1].at<I>({0}), 4);
    EXPECT_FALSE(it == loader.end());
    ++it;
    EXPECT_TRUE(it == loader.end());
    EXPECT_EQ((*copy)[1].at<I>({1}), 1);  // the copy still holds the first batch
}

TEST(DataLoader, IteratorsAndBatchesOutliveTheLoaderAndTheCallersTensors) {
    const DataLoader::Iterator it = [] {
        const DataLoader loader(numbered(4), {.batch_size = 3, .shuffle = true});
        return loader.begin();
    }();
    EXPECT_EQ((*it)[0].size(0), 3);
    DataLoader::Iterator next = it;
    ++next;
    EXPECT_EQ(values<I>((*next)[1]).size(), 1U);
    EXPECT_FALSE(next == DataLoader::Sentinel{});
}

}  // namespace
