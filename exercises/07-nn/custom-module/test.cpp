// Tests of exercise 07.1. Every test fails until Affine and Mlp are implemented.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "exercise.h"
#include "kael/autograd.h"
#include "kael/factory.h"
#include "kael/nn/init.h"
#include "kael/ops.h"
#include "kael/optim/sgd.h"
#include "kael/random.h"

namespace {

using exercise::Affine;
using exercise::Mlp;
using kael::DType;
using kael::Tensor;

std::vector<double> values(const Tensor& t) {
    const Tensor c = t.contiguous().to(DType::F64);
    return {c.data_ptr<double>(), c.data_ptr<double>() + c.numel()};
}

std::vector<std::string> names(const std::vector<kael::nn::NamedTensor>& named) {
    std::vector<std::string> out;
    for (const auto& [name, tensor] : named) {
        out.push_back(name);
    }
    return out;
}

// Writes `data` into a parameter outside the graph, as an initialiser does.
void fill(Tensor& parameter, const std::vector<float>& data) {
    const kael::autograd::NoGradGuard no_grad;
    parameter.copy_(kael::from_vector(data, parameter.shape()));
}

TEST(Affine, RegistersScaleThenShiftAsTrainableLeaves) {
    Affine affine(3);
    const auto named = affine.named_parameters();
    EXPECT_EQ(names(named), (std::vector<std::string>{"scale", "shift"}));
    ASSERT_EQ(named.size(), 2u);
    // The members and the registry hold one tensor each, not two copies.
    EXPECT_EQ(named[0].second.impl(), affine.scale.impl());
    EXPECT_EQ(named[1].second.impl(), affine.shift.impl());
    EXPECT_EQ(values(affine.scale), (std::vector<double>{1, 1, 1}));
    EXPECT_EQ(values(affine.shift), (std::vector<double>{0, 0, 0}));
    for (const Tensor& p : {affine.scale, affine.shift}) {
        EXPECT_TRUE(p.requires_grad());
        EXPECT_TRUE(p.is_leaf());
        EXPECT_EQ(p.dtype(), DType::F32);
    }
    EXPECT_TRUE(affine.buffers().empty());
    std::ostringstream os;
    os << affine;
    EXPECT_EQ(os.str(), "Affine(features=3)");
}

TEST(Affine, ForwardScalesAndShiftsEachFeatureOfTheLastDimension) {
    Affine affine(3);
    fill(affine.scale, {1, 2, -3});
    fill(affine.shift, {0.5, -1, 0});
    const Tensor x = kael::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
    const Tensor y = affine(x);
    EXPECT_EQ(y.shape(), (kael::Shape{2, 3}));
    EXPECT_EQ(values(y), (std::vector<double>{1.5, 3, -9, 4.5, 9, -18}));
    // Any number of leading dimensions: every row of every batch gets the same treatment.
    const Tensor batched = kael::ones({2, 2, 3});
    EXPECT_EQ(affine(batched).shape(), (kael::Shape{2, 2, 3}));
    EXPECT_EQ(values(affine(batched)), (std::vector<double>{1.5, 1, -3, 1.5, 1, -3, 1.5, 1, -3, 1.5, 1, -3}));
}

TEST(Affine, RefusesNegativeFeaturesAndInputsOfAnotherWidth) {
    EXPECT_THROW(Affine(-1), kael::ValueError);
    EXPECT_NO_THROW(Affine(0));
    Affine affine(3);
    EXPECT_THROW((void)affine(kael::ones({2, 4})), kael::ValueError);
    EXPECT_THROW((void)affine(kael::ones({2, 1})), kael::ValueError);  // broadcasting would stretch it
    EXPECT_THROW((void)affine(kael::scalar(1.0)), kael::ValueError);   // no last dimension at all
    EXPECT_NO_THROW((void)affine(kael::ones({3})));
}

TEST(Affine, BackwardReachesTheScaleAndTheShift) {
    Affine affine(3);
    fill(affine.scale, {2, 2, 2});
    Tensor x = kael::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
    x.requires_grad_();
    affine(x).sum().backward();
    ASSERT_TRUE(affine.scale.grad().has_value());
    ASSERT_TRUE(affine.shift.grad().has_value());
    EXPECT_EQ(values(*affine.scale.grad()), (std::vector<double>{5, 7, 9}));  // x summed over the batch
    EXPECT_EQ(values(*affine.shift.grad()), (std::vector<double>{2, 2, 2}));  // one per row
    EXPECT_EQ(values(*x.grad()), (std::vector<double>{2, 2, 2, 2, 2, 2}));    // the scale, per element
}

TEST(Affine, StateDictRoundTripsIntoASecondInstance) {
    Affine source(2);
    fill(source.scale, {3, -1});
    fill(source.shift, {0.25, 4});
    EXPECT_EQ(source.state_dict().keys(), (std::vector<std::string>{"scale", "shift"}));
    Affine copy(2);
    copy.load_state_dict(source.state_dict());
    EXPECT_EQ(values(copy.scale), (std::vector<double>{3, -1}));
    EXPECT_EQ(values(copy.shift), (std::vector<double>{0.25, 4}));
    const Tensor x = kael::from_vector<float>({1, 2, -3, 0.5}, {2, 2});
    EXPECT_EQ(values(copy(x)), values(source(x)));
    // Loading copies the values: the two modules do not share their tensors afterwards.
    fill(source.scale, {0, 0});
    EXPECT_EQ(values(copy.scale), (std::vector<double>{3, -1}));
    Affine wider(3);
    EXPECT_THROW(wider.load_state_dict(source.state_dict()), kael::ValueError);
}

TEST(Affine, AnSgdStepMovesBothParametersAgainstTheirGradients) {
    Affine affine(3);
    kael::optim::Sgd sgd(affine.parameters(), {.lr = 0.5});
    const Tensor x = kael::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
    affine(x).sum().backward();
    sgd.step();
    EXPECT_EQ(values(affine.scale), (std::vector<double>{1 - 2.5, 1 - 3.5, 1 - 4.5}));
    EXPECT_EQ(values(affine.shift), (std::vector<double>{-1, -1, -1}));
    EXPECT_TRUE(affine.scale.is_leaf());
}

TEST(Mlp, NamesItsParametersByLayerInRegistrationOrder) {
    Mlp mlp(3, 4, 2);
    EXPECT_EQ(names(mlp.named_parameters()),
              (std::vector<std::string>{"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias", "affine.scale",
                                        "affine.shift"}));
    const auto& children = mlp.named_children();
    ASSERT_EQ(children.size(), 3u);
    EXPECT_EQ(children[0].first, "fc1");
    EXPECT_EQ(children[1].first, "fc2");
    EXPECT_EQ(children[2].first, "affine");
    // The members are the registered submodules themselves.
    EXPECT_EQ(children[0].second.get(), mlp.fc1.get());
    EXPECT_EQ(children[1].second.get(), mlp.fc2.get());
    EXPECT_EQ(children[2].second.get(), mlp.affine.get());
    EXPECT_EQ(mlp.fc1->weight.shape(), (kael::Shape{4, 3}));
    EXPECT_EQ(mlp.fc2->weight.shape(), (kael::Shape{2, 4}));
    EXPECT_EQ(mlp.affine->scale.shape(), (kael::Shape{2}));
    EXPECT_EQ(mlp.parameters(/*recurse=*/false).size(), 0u);  // every parameter belongs to a submodule
    std::ostringstream os;
    os << mlp;
    EXPECT_EQ(os.str(),
              "Mlp(\n"
              "  (fc1): Linear(in_features=3, out_features=4, bias=true)\n"
              "  (fc2): Linear(in_features=4, out_features=2, bias=true)\n"
              "  (affine): Affine(features=2)\n"
              ")");
}

TEST(Mlp, ForwardIsTwoLayersWithAReluBetweenThenTheAffine) {
    kael::manual_seed(7);
    Mlp mlp(3, 5, 2);
    kael::nn::init::uniform_(mlp.affine->scale, 0.5, 2.0);
    kael::nn::init::uniform_(mlp.affine->shift, -1.0, 1.0);
    const Tensor x = kael::randn({4, 3});
    const Tensor hidden = kael::relu(kael::matmul(x, mlp.fc1->weight.mT()) + *mlp.fc1->bias);
    const Tensor expected = (kael::matmul(hidden, mlp.fc2->weight.mT()) + *mlp.fc2->bias) * mlp.affine->scale +
                            mlp.affine->shift;
    const Tensor y = mlp(x);
    EXPECT_EQ(y.shape(), (kael::Shape{4, 2}));
    EXPECT_TRUE(kael::allclose(y, expected, 1e-5, 1e-6));
}

TEST(Mlp, StateDictRoundTripsAndTheCopyComputesTheSameOutputs) {
    kael::manual_seed(1);
    Mlp source(3, 4, 2);
    kael::nn::init::uniform_(source.affine->scale, 0.5, 2.0);
    kael::manual_seed(2);
    Mlp copy(3, 4, 2);
    const Tensor x = kael::randn({5, 3});
    ASSERT_NE(values(copy(x)), values(source(x)));  // two initialisations, two functions
    copy.load_state_dict(source.state_dict());
    EXPECT_EQ(copy.state_dict().keys(), source.state_dict().keys());
    EXPECT_EQ(values(copy(x)), values(source(x)));
    EXPECT_EQ(values(copy.affine->scale), values(source.affine->scale));
}

TEST(Mlp, ATrainingStepReachesAndChangesEveryParameter) {
    kael::manual_seed(3);
    Mlp mlp(3, 8, 2);
    const Tensor x = kael::randn({16, 3});
    const Tensor target = kael::randn({16, 2});
    auto loss_of = [&] {
        const Tensor diff = mlp(x) - target;
        return (diff * diff).mean();
    };
    std::vector<std::vector<double>> before;
    for (const Tensor& p : mlp.parameters()) {
        before.push_back(values(p));
    }
    ASSERT_EQ(before.size(), 6u);
    kael::optim::Sgd sgd(mlp.parameters(), {.lr = 0.1});
    const double first = loss_of().item();
    for (int step = 0; step < 20; ++step) {
        sgd.zero_grad();
        loss_of().backward();
        if (step == 0) {
            for (const auto& [name, p] : mlp.named_parameters()) {
                ASSERT_TRUE(p.grad().has_value()) << name << " got no gradient";
                EXPECT_EQ(p.grad()->shape(), p.shape()) << name;
            }
        }
        sgd.step();
    }
    const std::vector<Tensor> after = mlp.parameters();
    for (std::size_t i = 0; i < after.size(); ++i) {
        EXPECT_NE(values(after[i]), before[i]) << "parameter " << i << " did not move";
    }
    EXPECT_LT(loss_of().item(), first);
}

}  // namespace
